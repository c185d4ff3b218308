package approval_test

import (
	"fmt"

	"github.com/askuser-go/askuser/approval"
)

// A program about to run an approved action computes the digest of what
// it will run and compares it with the result's action_digest: the same
// action and details give the same digest, and any change gives another.
func ExampleDigest() {
	approved := approval.Digest("Delete the oldest backup", "rm /srv/backups/2024-01.tar")
	fmt.Println(approved == approval.Digest("Delete the oldest backup", "rm /srv/backups/2024-01.tar"))
	fmt.Println(approved == approval.Digest("Delete the oldest backup", "rm -r /srv/backups"))
	fmt.Println(len(approved))
	// Output:
	// true
	// false
	// 71
}
