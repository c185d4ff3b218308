package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVersion: the module's version where the build names one, as the
// main module or as a dependency; else (devel) and the commit.
func TestVersion(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-30T09:00:00Z"}}
	dirty := append(rev[:2:2], debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install @version", debug.BuildInfo{Main: debug.Module{Path: module, Version: "v1.4.0"}}, "v1.4.0"},
		{"a pseudo-version", debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.0.0-20261130090000-0123456789ab"}, Settings: rev}, "v0.0.0-20261130090000-0123456789ab"},
		{"a checkout without a tag", debug.BuildInfo{Main: debug.Module{Path: module, Version: devel}, Settings: rev}, "(devel) 0123456789ab"},
		{"a modified checkout", debug.BuildInfo{Main: debug.Module{Path: module, Version: devel}, Settings: dirty}, "(devel) 0123456789ab+dirty"},
		{"no version and no commit", debug.BuildInfo{Main: debug.Module{Path: module}}, "(devel)"},
		{"a dependency of another program", debug.BuildInfo{Main: debug.Module{Path: "example.com/agent", Version: "v9.9.9"},
			Deps: []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.1.0"}, {Path: module, Version: "v1.2.3"}}}, "v1.2.3"},
		{"a replaced dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/agent"},
			Deps: []*debug.Module{{Path: module, Version: "v1.2.3", Replace: &debug.Module{Path: "../askuser", Version: "v1.2.4"}}}}, "v1.2.4"},
		{"another program without askuser's version", debug.BuildInfo{Main: debug.Module{Path: "example.com/agent", Version: "v9.9.9"}}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, version(&tt.bi)); diff != "" {
				t.Errorf("version (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDescribe: one line with the version, the toolchain, the platform,
// the commit (once) and its time.
func TestDescribe(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: "v1.4.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-30T09:00:00Z"}}},
			"askuser v1.4.0 go1.26.8 " + platform + " commit 0123456789ab (2026-11-30T09:00:00Z)"},
		{"a checkout: the commit once", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: devel},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}},
			"askuser (devel) 0123456789ab+dirty go1.26.8 " + platform},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, describe(&tt.bi)); diff != "" {
				t.Errorf("describe (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunningBinary: the test binary has build information, and Version
// and Describe read it.
func TestRunningBinary(t *testing.T) {
	if v := Version(); v == "" {
		t.Error("Version() is empty")
	}
	if d := Describe(); !strings.HasPrefix(d, "askuser ") || !strings.Contains(d, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("Describe() = %q; want askuser, the version and the platform", d)
	}
}
