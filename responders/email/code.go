package email

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser"
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

// approvalCode is the code an approval's confirm page asks for: its
// digest, and how many wrong codes may still be typed.
type approvalCode struct {
	sum  [32]byte
	left int
}

// sendCode sends an approval's code through Options.SendCode, when the
// responder has one; anything else needs none.
func (r *Responder) sendCode(a *askuser.Ask) error {
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
	r.mu.Lock()
	r.codes[a.ID()] = &approvalCode{sum: sha256.Sum256(b[:]), left: MaxCodeAttempts}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(r.ctx, sendTimeout)
	defer cancel()
	if err := r.opts.SendCode(ctx, r.addr(r.opts.To), a, code[:4]+"-"+code[4:]); err != nil {
		return fmt.Errorf("email: the approval's code could not be sent apart from the mail, so the approval is not mailed: %w", err)
	}
	return nil
}

// checkCode checks a code typed on an approval's confirm page: "" when it
// is the approval's, else what the page says (and a wrong code is
// counted).
func (r *Responder) checkCode(askID, typed string) string {
	if r.opts.SendCode == nil {
		return ""
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
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.codes[askID]
	switch {
	case c == nil || c.left <= 0:
		return fmt.Sprintf("This approval took %d wrong codes: it is no longer decided by email. Nothing was changed.", MaxCodeAttempts)
	case typed == "":
		return "Type the code sent to you apart from this mail. Nothing was changed."
	case subtle.ConstantTimeCompare(sum[:], c.sum[:]) != 1:
		c.left--
		if c.left == 0 {
			return fmt.Sprintf("That is not the code, and it was the last attempt: this approval took %d wrong codes and is no longer decided by email. Nothing was changed.", MaxCodeAttempts)
		}
		return fmt.Sprintf("That is not the code sent to you. %d attempts are left. Nothing was changed.", c.left)
	}
	return ""
}
