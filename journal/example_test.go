package journal_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
)

// Write two records to a journal file and read them back.
func Example() {
	dir, err := os.MkdirTemp("", "journal-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "decisions.jsonl")

	j, err := journal.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, r := range []*journal.Record{
		{Version: journal.RecordVersion, AskID: "c1", Session: "s1", ToolCallID: "t1", Contract: "ask_user",
			Status: askuser.StatusAnswered, AnsweredBy: askuser.ByUser, Reason: askuser.ReasonSubmitted, FinalizedAt: at},
		{Version: journal.RecordVersion, AskID: "c2", Session: "s1", ToolCallID: "t2", Contract: "ask_user",
			Status: askuser.StatusTimedOut, AnsweredBy: askuser.ByTimeout, Reason: askuser.ReasonDeadline, FinalizedAt: at.Add(time.Minute)},
	} {
		// An orchestrator hands a journal its records already encoded
		// (a store.Record); a tool that copies records encodes them so.
		sr, err := r.Stored()
		if err != nil {
			log.Fatal(err)
		}
		// Append returns once the record is durable.
		if err := j.Append(context.Background(), sr); err != nil {
			log.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		log.Fatal(err)
	}

	for rec, err := range journal.ReadFile(path) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(rec.FinalizedAt.Format(time.RFC3339), rec.AskID, rec.ToolCallID, rec.Status, rec.AnsweredBy, rec.Reason)
	}
	// Output:
	// 2026-01-02T15:04:05Z c1 t1 answered user submitted
	// 2026-01-02T15:05:05Z c2 t2 timed_out timeout deadline
}
