//go:build !unix

package main

// openNonblock is not needed where files are opened without waiting.
const openNonblock = 0

// checkKeyMode is false where file modes do not say who may read a file.
const checkKeyMode = false
