package email

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// MaxCodeAttempts is how many wrong codes (Options.SendCode) the confirm
// pages of one approval take in all: after them, that approval is not
// decided by email.
const MaxCodeAttempts = 5

// codeAlphabet has no letters or digits a person mixes up (no I, O, 0 or
// 1): 32 symbols, 5 bits each.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// codeLen is a code's length: 40 bits, shown as XXXX-XXXX.
const codeLen = 8

// approvalCode is what the note of an approval's code holds: the code's
// digest (hex), and how many wrong codes may still be typed.
type approvalCode struct {
	Sum  string `json:"sum"`
	Left int    `json:"left"`
}

// codeKey is the note of the code of the ask askID, in Options.Notes: the
// ask id's digest, so that any id makes a key.
func codeKey(askID string) string {
	d := sha256.Sum256([]byte(askID))
	return "code." + hex.EncodeToString(d[:16])
}

// codeNoteTimeout bounds each read and write of a code's note.
const codeNoteTimeout = 10 * time.Second

// sendCode sends an approval's code through Options.SendCode, when the
// responder has one; anything else needs none. The code's digest and the
// attempts left are noted in Options.Notes first, so that a confirm page
// on any replica checks it.
func (r *Responder) sendCode(a *askuser.Ask, id, mailbox string) error {
	if a.Form().Approval == nil || r.opts.SendCode == nil {
		return nil
	}
	var b [codeLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("email: no randomness for an approval's code: %w", err)
	}
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	code := string(b[:])
	sum := sha256.Sum256(b[:])
	if err := r.noteCode(id, hex.EncodeToString(sum[:])); err != nil {
		return fmt.Errorf("email: the approval's code could not be noted for the replicas, so the approval is not mailed: %w", err)
	}
	ctx, cancel := context.WithTimeout(r.ctx, sendTimeout)
	defer cancel()
	if err := r.opts.SendCode(ctx, mailbox, a, code[:4]+"-"+code[4:]); err != nil {
		return fmt.Errorf("email: the approval's code could not be sent apart from the mail, so the approval is not mailed: %w", err)
	}
	return nil
}

// noteCode notes the code's digest for askID, create-only; an ask noted
// already (mailed again, by a replica that took over) keeps the attempts
// its confirm pages have left.
func (r *Responder) noteCode(askID, sum string) error {
	ctx, cancel := context.WithTimeout(r.ctx, codeNoteTimeout)
	defer cancel()
	key := codeKey(askID)
	data, _ := json.Marshal(approvalCode{Sum: sum, Left: MaxCodeAttempts})
	_, err := r.notes.Create(ctx, key, data)
	for range 8 {
		if !errors.Is(err, store.ErrExists) && !errors.Is(err, store.ErrChanged) {
			return err
		}
		var e store.Entry
		if e, err = r.notes.Get(ctx, key); err != nil {
			return err
		}
		var c approvalCode
		if json.Unmarshal(e.Data, &c) != nil {
			c.Left = 0 // not a note this responder wrote: no attempt is left
		}
		data, _ = json.Marshal(approvalCode{Sum: sum, Left: min(max(c.Left, 0), MaxCodeAttempts)})
		_, err = r.notes.Update(ctx, key, data, e.Revision)
	}
	return err
}

// checkCode checks a code typed on an approval's confirm page: 0 and ""
// when it is the approval's, else the status and what the page says (and
// a wrong code is counted, by a compare-and-set on the code's note, so
// that MaxCodeAttempts holds across the replicas).
func (r *Responder) checkCode(ctx context.Context, askID, typed string) (int, string) {
	if r.opts.SendCode == nil {
		return 0, ""
	}
	norm := strings.Map(func(c rune) rune {
		switch {
		case c == '-' || c == ' ' || c == '\t':
			return -1
		case c >= 'a' && c <= 'z':
			return c - 'a' + 'A'
		}
		return c
	}, typed)
	sum := sha256.Sum256([]byte(norm))
	ctx, cancel := context.WithTimeout(ctx, codeNoteTimeout)
	defer cancel()
	const retry = "The code could not be checked just now; nothing was changed. Open the link again in a moment."
	spent := fmt.Sprintf("This approval took %d wrong codes: it is no longer decided by email. Nothing was changed.", MaxCodeAttempts)
	key := codeKey(askID)
	for range 16 {
		e, err := r.notes.Get(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			return http.StatusForbidden, spent // no code was sent for it, or its note is gone
		}
		if err != nil {
			r.log.Error("askuser email: the note of an approval's code could not be read", "ask", askID, "err", err)
			return http.StatusServiceUnavailable, retry
		}
		var c approvalCode
		err = json.Unmarshal(e.Data, &c)
		want, herr := hex.DecodeString(c.Sum)
		switch {
		case err != nil || herr != nil || len(want) != len(sum) || c.Left <= 0:
			// Spent, or not a note this responder wrote: no attempt is left.
			return http.StatusForbidden, spent
		case typed == "":
			return http.StatusForbidden, "Type the code sent to you apart from this mail. Nothing was changed."
		case subtle.ConstantTimeCompare(sum[:], want) == 1:
			return 0, ""
		}
		c.Left--
		data, _ := json.Marshal(c)
		_, err = r.notes.Update(ctx, key, data, e.Revision)
		switch {
		case errors.Is(err, store.ErrChanged):
			continue // another attempt was counted meanwhile: count this one after it
		case err != nil:
			r.log.Error("askuser email: a wrong code could not be counted", "ask", askID, "err", err)
			return http.StatusServiceUnavailable, retry
		case c.Left == 0:
			return http.StatusForbidden, fmt.Sprintf("That is not the code, and it was the last attempt: this approval took %d wrong codes and is no longer decided by email. Nothing was changed.", MaxCodeAttempts)
		}
		return http.StatusForbidden, fmt.Sprintf("That is not the code sent to you. %d attempts are left. Nothing was changed.", c.Left)
	}
	return http.StatusServiceUnavailable, retry
}
