package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/route/routefile"
)

// routesFlag adds --routes to validate's flags.
func routesFlag(fs *flag.FlagSet) *string {
	return fs.String("routes", "", "check the routes `FILE` (YAML or JSON) instead of a call, and print what it means in words")
}

// validateRoutes is askuser validate --routes FILE: it reads the routes
// file, prints what it means (a line for each group, route and rule) and
// exits 0, or prints what is wrong (FILE:LINE:COL: field: what is
// allowed) and exits 2. It checks a routes file alone: a call FILE or the
// flags that shape a call are refused with it.
func (e env) validateRoutes(fs *flag.FlagSet, name string) int {
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser validate: --routes checks a routes file, not a call; remove %q, or validate it without --routes\n", fs.Arg(0))
		return exitUsage
	}
	var others []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "routes" {
			others = append(others, "--"+f.Name)
		}
	})
	if len(others) > 0 {
		fmt.Fprintf(e.stderr, "askuser validate: %s shape a call; --routes takes no other flag\n", strings.Join(others, ", "))
		return exitUsage
	}
	f, code, ok := e.parseRoutes("validate", name)
	if !ok {
		return code
	}
	for line := range strings.Lines(f.Describe()) {
		fmt.Fprintln(e.stdout, inert.Line(strings.TrimSuffix(line, "\n")))
	}
	return exitOK
}

// parseRoutes reads and checks a routes file for cmd: on a problem it
// prints it — the file that cannot be read (exit 1), or where the file is
// wrong, FILE:LINE:COL: field: what is allowed (exit 2) — and ok is false.
func (e env) parseRoutes(cmd, name string) (f *routefile.File, code int, ok bool) {
	data, err := readCapped("the routes file", name, routefile.MaxSize,
		"a routes file is a regular file of YAML or JSON",
		"a routes file holds a few routes and rules: make it smaller")
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser %s: %v\n", cmd, err)
		return nil, exitFailure, false
	}
	f, err = routefile.Parse(name, data)
	clear(data)
	if err != nil {
		fmt.Fprintln(e.stderr, inert.Line(err.Error()))
		return nil, exitUsage, false
	}
	return f, exitOK, true
}

// routesSelector is --routes FILE of serve and approve, read at start
// with the errors of validate --routes: the Orchestrator.Routes that
// chooses each ask's route by the file's rules, or nil without the flag.
func (e env) routesSelector(cmd, name string) (sel route.Selector, code int, ok bool) {
	if name == "" {
		return nil, exitOK, true
	}
	f, code, ok := e.parseRoutes(cmd, name)
	if !ok {
		return nil, code, false
	}
	return f.Select, exitOK, true
}

// routesUsage is what --routes says on serve and approve.
const routesUsage = "choose each ask's route (who is asked, who next, and the quorum an approval needs) by the rules of the routes `FILE` (YAML or JSON; see docs/routing.md), read and checked at start as validate --routes checks it"
