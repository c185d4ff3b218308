//go:build linux

package fleettest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/internal/testport"
)

// Bounds of the fleet's start.
const (
	natsReadyWait  = time.Minute     // a NATS node answering /healthz, the cluster's JetStream answering
	serveReadyWait = 5 * time.Minute // a replica serving: at this commit it reads every pending ask first
)

// binaries returns the askuser and nats-server binaries: ASKUSER_BIN and
// NATS_SERVER_BIN, or built from this module into a temporary directory.
func binaries(t *testing.T) (askuserBin, natsBin string) {
	t.Helper()
	askuserBin, natsBin = os.Getenv("ASKUSER_BIN"), os.Getenv("NATS_SERVER_BIN")
	if askuserBin != "" && natsBin != "" {
		return askuserBin, natsBin
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		t.Fatalf("go env GOMOD: %q, %v: the tests build the binaries from the module (or set ASKUSER_BIN and NATS_SERVER_BIN)", gomod, err)
	}
	root, dir := filepath.Dir(gomod), t.TempDir()
	build := func(name, pkg string) string {
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -o %s %s: %v\n%s", bin, pkg, err, out)
		}
		return bin
	}
	if askuserBin == "" {
		askuserBin = build("askuser", "./cmd/askuser")
	}
	if natsBin == "" {
		// The server module's main package is its root, in go.mod's graph.
		natsBin = build("nats-server", "github.com/nats-io/nats-server/v2")
	}
	return askuserBin, natsBin
}

// keepLogs copies every process's output files out of dir, the test's
// temporary directory, into the directory ASKUSER_FLEET_LOGS names, if it
// is set: what the replicas and the NATS nodes logged outlives the test,
// for a run to be read afterwards (which kill held up which deadline).
func keepLogs(t *testing.T, dir string) {
	to := os.Getenv("ASKUSER_FLEET_LOGS")
	if to == "" {
		return
	}
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err == nil {
		err = os.MkdirAll(to, 0o755)
	}
	for _, l := range logs {
		if err != nil {
			break
		}
		var b []byte
		if b, err = os.ReadFile(l); err == nil {
			err = os.WriteFile(filepath.Join(to, filepath.Base(l)), b, 0o644)
		}
	}
	if err != nil {
		t.Errorf("keeping the processes' logs in %s (ASKUSER_FLEET_LOGS): %v", to, err)
		return
	}
	t.Logf("the processes' logs (%d files) are in %s", len(logs), to)
}

// A proc is one program of the fleet, started again with the same
// arguments after it is killed. Each run's output goes to a file of its
// own in logDir.
type proc struct {
	name   string
	bin    string
	args   []string
	logDir string

	mu     sync.Mutex
	cmd    *exec.Cmd     // nil while down
	exited chan struct{} // closed once cmd has exited
	err    error         // cmd.Wait's, once exited is closed
	log    string        // the current run's output file
	runs   int
}

// start starts the program; the test's cleanup kills it.
func (p *proc) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("%s is already running", p.name)
	}
	p.runs++
	p.log = filepath.Join(p.logDir, fmt.Sprintf("%s.%d.log", p.name, p.runs))
	f, err := os.Create(p.log)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = f, f
	err = cmd.Start()
	f.Close() // the child has its own descriptor
	if err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
	return nil
}

// kill SIGKILLs the program, if it runs, and waits until it has exited.
func (p *proc) kill() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.cmd = nil
	p.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Kill()
		<-exited
	}
}

// pid is the running program's process id, or 0 while it is down.
func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// output returns the current run's output and whether the run has exited
// (with cmd.Wait's error).
func (p *proc) output() (out string, exited bool, err error) {
	p.mu.Lock()
	log, ch := p.log, p.exited
	p.mu.Unlock()
	b, _ := os.ReadFile(log)
	select {
	case <-ch:
		p.mu.Lock()
		err = p.err
		p.mu.Unlock()
		return string(b), true, err
	default:
		return string(b), false, nil
	}
}

// tail is the last lines of the current run's output, for a message.
func (p *proc) tail() string {
	out, _, _ := p.output()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// logLines returns the lines of every run's output that contain substr:
// how many, and the first few.
func (p *proc) logLines(substr string, few int) (n int, first []string) {
	p.mu.Lock()
	runs := p.runs
	p.mu.Unlock()
	for run := 1; run <= runs; run++ {
		b, _ := os.ReadFile(filepath.Join(p.logDir, fmt.Sprintf("%s.%d.log", p.name, run)))
		for line := range strings.Lines(string(b)) {
			if strings.Contains(line, substr) {
				n++
				if len(first) < few {
					first = append(first, strings.TrimSpace(line))
				}
			}
		}
	}
	return n, first
}

// A natsNode is one nats-server of the cluster.
type natsNode struct {
	*proc
	client, monitor int // ports
}

func (n *natsNode) url() string { return "nats://127.0.0.1:" + strconv.Itoa(n.client) }

// A replica is one `askuser serve` of the fleet.
type replica struct {
	*proc
	base string // http://127.0.0.1:PORT
}

// A fleet is three NATS nodes clustered with JetStream and three askuser
// replicas joined to them, sharing one agent token and one key ring.
type fleet struct {
	askuser       string // the binary
	dir           string
	natsTokenFile string
	natsToken     string
	natsURL       string // every node's, comma-separated
	nats          []*natsNode
	serve         []*replica
	c             *client
}

// newFleet starts the fleet and returns once every node and replica
// serves. Everything is killed when the test ends.
func newFleet(t *testing.T, ctx context.Context) *fleet {
	t.Helper()
	askuserBin, natsBin := binaries(t)
	dir := t.TempDir()
	f := &fleet{askuser: askuserBin, dir: dir, natsToken: randomHex(16)}
	agentToken := randomHex(16)
	f.natsTokenFile = writeFile(t, dir, "nats-token", f.natsToken+"\n")
	tokenFile := writeFile(t, dir, "agent-token", agentToken+"\n")
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	keyFile := writeFile(t, dir, "fleet.key", "fleet-1:"+base64.StdEncoding.EncodeToString(key)+"\n")
	f.c = newClient(t, agentToken)

	// Every port is known before anything starts: each node names the
	// others' routes, and a node or replica started again takes its
	// ports again (testport picks them below the ephemeral range).
	const n = 3
	routes := make([]int, n)
	for i := range routes {
		routes[i] = testport.Free(t)
	}
	var urls []string
	for i := range n {
		node := &natsNode{client: testport.Free(t), monitor: testport.Free(t)}
		var others []string
		for j, r := range routes {
			if j != i {
				others = append(others, fmt.Sprintf("%q", "nats-route://127.0.0.1:"+strconv.Itoa(r)))
			}
		}
		// A file, so that the token is in no process's arguments.
		conf := fmt.Sprintf(`server_name: "n%d"
listen: "127.0.0.1:%d"
http: "127.0.0.1:%d"
authorization { token: %q }
jetstream { store_dir: %q }
cluster {
  name: "c"
  listen: "127.0.0.1:%d"
  routes: [%s]
}
`, i, node.client, node.monitor, f.natsToken, filepath.Join(dir, fmt.Sprintf("nats-%d", i)), routes[i], strings.Join(others, ", "))
		confFile := writeFile(t, dir, fmt.Sprintf("nats-%d.conf", i), conf)
		node.proc = &proc{name: fmt.Sprintf("nats-%d", i), bin: natsBin, args: []string{"-c", confFile}, logDir: dir}
		f.nats = append(f.nats, node)
		urls = append(urls, node.url())
	}
	f.natsURL = strings.Join(urls, ",")
	for i := range n {
		f.serve = append(f.serve, &replica{
			base: "http://127.0.0.1:" + strconv.Itoa(testport.Free(t)),
			proc: &proc{name: fmt.Sprintf("serve-%d", i), bin: askuserBin, logDir: dir},
		})
		f.serve[i].args = []string{"serve", "--listen", strings.TrimPrefix(f.serve[i].base, "http://"),
			"--nats", f.natsURL, "--nats-token-file", f.natsTokenFile, "--nats-replicas", "3",
			"--token-file", tokenFile, "--key-file", keyFile, "--state", filepath.Join(dir, fmt.Sprintf("serve-%d", i)),
			"--max-timeout-seconds", "7200"}
	}
	t.Cleanup(func() {
		for _, p := range f.procs() {
			p.kill()
		}
		keepLogs(t, dir)
	})

	for _, node := range f.nats {
		if err := node.start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, node := range f.nats {
		if err := f.natsReady(ctx, node); err != nil {
			t.Fatalf("the NATS cluster did not come up: %v", err)
		}
	}
	if err := f.jetStreamAnswers(ctx); err != nil {
		t.Fatalf("the NATS cluster did not come up: %v", err)
	}
	// The first replica makes the buckets and the stream; the others
	// find them.
	for _, r := range f.serve {
		if err := r.start(); err != nil {
			t.Fatal(err)
		}
		if _, err := r.serving(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// procs is every process of the fleet: the NATS nodes, then the replicas.
func (f *fleet) procs() []*proc {
	var ps []*proc
	for _, n := range f.nats {
		ps = append(ps, n.proc)
	}
	for _, r := range f.serve {
		ps = append(ps, r.proc)
	}
	return ps
}

// natsReady waits until the node's monitoring endpoint says it is
// healthy: JetStream on, and current with the meta leader and with every
// stream it keeps.
func (f *fleet) natsReady(ctx context.Context, n *natsNode) error {
	ctx, cancel := context.WithTimeout(ctx, natsReadyWait)
	defer cancel()
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", n.monitor)
	last := "no answer"
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			b, _ := readBody(res)
			if res.StatusCode == 200 {
				return nil
			}
			last = fmt.Sprintf("%d %s", res.StatusCode, b)
		} else {
			last = err.Error()
		}
		if _, exited, err := n.output(); exited {
			return fmt.Errorf("%s exited (%v):\n%s", n.name, err, n.tail())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s was not healthy within %v (%s); its output:\n%s", n.name, natsReadyWait, last, n.tail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// jetStreamAnswers waits until the cluster's JetStream answers a client.
func (f *fleet) jetStreamAnswers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, natsReadyWait)
	defer cancel()
	nc, err := nats.Connect(f.natsURL, nats.Token(f.natsToken), nats.MaxReconnects(-1))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	for {
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := js.AccountInfo(actx)
		acancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("JetStream did not answer within %v: %v", natsReadyWait, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var servingLine = regexp.MustCompile(`serving the agent API and the card on (http://\S+) `)

// serving waits until the replica's current run says it serves (its
// listener opens once it has loaded the store's pending asks) and returns
// when it said so.
func (r *replica) serving(ctx context.Context) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, serveReadyWait)
	defer cancel()
	for {
		out, exited, err := r.output()
		if m := servingLine.FindStringSubmatch(out); m != nil {
			if m[1] != r.base {
				return time.Time{}, fmt.Errorf("%s serves on %s; want %s", r.name, m[1], r.base)
			}
			return time.Now(), nil
		}
		if exited {
			return time.Time{}, fmt.Errorf("%s exited before serving (%v):\n%s", r.name, err, r.tail())
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s did not serve within %v; its output:\n%s", r.name, serveReadyWait, r.tail())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// rssMiB returns the resident memory of every running process of the
// fleet, in MiB, by name.
func (f *fleet) rssMiB() (map[string]float64, error) {
	m := map[string]float64{}
	for _, p := range f.procs() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
				if err != nil {
					return nil, fmt.Errorf("%s: VmRSS %q", p.name, v)
				}
				m[p.name] = float64(kb) / 1024
			}
		}
	}
	return m, nil
}

// journalRecord is what the tests read of a journal record.
type journalRecord struct {
	AskID       string          `json:"ask_id"`
	Session     string          `json:"session"`
	ToolCallID  string          `json:"tool_call_id"`
	Status      string          `json:"status"`
	AnsweredBy  string          `json:"answered_by"`
	ExpiresAt   time.Time       `json:"expires_at"`
	FinalizedAt time.Time       `json:"finalized_at"`
	Result      json.RawMessage `json:"result"`
}

// journal lists the fleet's journal stream with `askuser journal --nats`.
func (f *fleet) journal(ctx context.Context) ([]journalRecord, error) {
	cmd := exec.CommandContext(ctx, f.askuser, "journal", "--nats", f.natsURL, "--nats-token-file", f.natsTokenFile, "--json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("askuser journal --nats: %v: %s", err, stderr.String())
	}
	var recs []journalRecord
	for line := range strings.Lines(string(out)) {
		var r journalRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("askuser journal --nats printed %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// Calls and answers the tests send.
const (
	answerProduction = `{"answers":{"env":{"selected":["production"]}}}`
	answeredResult   = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`
)

// choiceCall is an ask_user call of one question with two options.
func choiceCall(timeoutSeconds int) string {
	return fmt.Sprintf(`{"questions":[{"id":"env","header":"Env","question":"Where first?","options":[{"label":"staging","description":"s"},{"label":"production","description":"p"}]}],"timeout_seconds":%d}`, timeoutSeconds)
}

// answerWith is a card submit choosing label, and answeredWith the
// result the model then reads.
func answerWith(label string) string {
	return `{"answers":{"env":{"selected":["` + label + `"]}}}`
}

func answeredWith(label string) string {
	return strings.Replace(answeredResult, `"production"`, `"`+label+`"`, 1)
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// envInt reads a positive whole number from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number from 1", name, v)
	}
	return n
}

// envDuration reads a positive duration from the environment, or def.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration such as 2m", name, v)
	}
	return d
}

// testContext bounds a whole test by limit, or by the test binary's
// -timeout less a minute when that comes first, so that a stall fails with
// the test's own message rather than a panic.
func testContext(t *testing.T, limit time.Duration) context.Context {
	end := time.Now().Add(limit)
	if d, ok := t.Deadline(); ok && d.Add(-time.Minute).Before(end) {
		end = d.Add(-time.Minute)
	}
	ctx, cancel := context.WithDeadline(context.Background(), end)
	t.Cleanup(cancel)
	return ctx
}

// writeFigures logs the figures as one block and, when the environment
// variable out names a file, writes them there as JSON.
func writeFigures(t *testing.T, out string, figures any) {
	t.Helper()
	b, err := json.MarshalIndent(figures, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("figures:\n%s", b)
	if p := os.Getenv(out); p != "" {
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			t.Errorf("%s: %v", out, err)
		}
	}
}

// percentile returns the q-quantile of ds (nearest rank), in seconds
// (0 for none: JSON has no NaN; the figures give the count beside).
func percentile(ds []time.Duration, q float64) float64 {
	return seconds(quantile(ds, q))
}

// quantile returns the q-quantile of ds (nearest rank), or 0 for none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// seconds rounds a duration's seconds to the millisecond, for a figure.
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// round3 rounds x to three decimals, for a figure.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
