// Package buildinfo says which askuser a binary is, from the build
// information the go command stamps into it: the module's version for a
// binary built by go install …@version (or, from Go 1.24, by go build in
// a checkout, from its tag or a pseudo-version), else the commit it was
// built from. It is what askuser version prints and what the MCP server
// announces as its version.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// devel is the version of a binary whose build information names none.
const devel = "(devel)"

// Version returns the askuser module's version in the running binary:
// "v1.4.0", a pseudo-version such as "v0.0.0-20260101120000-0123456789ab",
// or, built from a checkout without one, "(devel)" and the commit
// ("(devel) 0123456789ab", with "+dirty" for a modified tree). When the
// askuser module is a dependency of the binary, its version there.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devel
	}
	return version(bi)
}

// Describe returns one line for askuser version: the version, the Go
// toolchain, the platform and, where the build recorded them, the commit
// and its time.
func Describe() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "askuser " + devel + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	}
	return describe(bi)
}

// module is the askuser module's path.
const module = "github.com/askuser-go/askuser"

func version(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if bi.Main.Path != module {
		v = ""
		for _, d := range bi.Deps {
			if d.Path == module {
				v = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v = d.Replace.Version
				}
			}
		}
	}
	if v != "" && v != devel {
		return v
	}
	if rev, dirty := vcs(bi); rev != "" {
		if dirty {
			rev += "+dirty"
		}
		return devel + " " + rev
	}
	return devel
}

func describe(bi *debug.BuildInfo) string {
	var b strings.Builder
	b.WriteString("askuser " + version(bi))
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	b.WriteString(" " + goVersion + " " + runtime.GOOS + "/" + runtime.GOARCH)
	if rev, dirty := vcs(bi); rev != "" && !strings.Contains(version(bi), rev) {
		b.WriteString(" commit " + rev)
		if dirty {
			b.WriteString("+dirty")
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" && s.Value != "" {
			b.WriteString(" (" + s.Value + ")")
		}
	}
	return b.String()
}

// vcs returns the first 12 digits of the commit the build recorded, and
// whether the tree was modified.
func vcs(bi *debug.BuildInfo) (rev string, dirty bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return rev, dirty
}
