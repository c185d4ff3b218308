//go:build !unix

package main

import "io/fs"

// openNonblock is not needed where files are opened without waiting.
const openNonblock = 0

// checkKeyMode is false where file modes do not say who may read a file.
const checkKeyMode = false

// ownedByOther is false where file modes do not say who owns a file.
func ownedByOther(fs.FileInfo) bool { return false }
