package termtext_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/askuser-go/askuser/internal/termtext"
)

// wrapText is a question of a few lines, as a card wraps it to 80 columns.
var wrapText = strings.Repeat("Which environment should the login fix go to first? Staging runs the smoke tests; production is behind the flag. ", 4) +
	"\n" + strings.Repeat("déploiement → prod ⏳ 日本語 ", 6)

// BenchmarkWrap measures Wrap against ansi.Wrap, which the card used
// before (the baseline: it marks no line).
func BenchmarkWrap(b *testing.B) {
	b.Run("termtext.Wrap", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = termtext.Wrap(wrapText, 80, "", "│ ")
		}
	})
	b.Run("ansi.Wrap (baseline)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = strings.Split(ansi.Wrap(wrapText, 80, ""), "\n")
		}
	})
}
