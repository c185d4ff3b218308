package stats

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
)

// Table writes the report as a table for a terminal: a row per group, then
// the total. The keys come from the journal — headers the model wrote —
// and are made inert (a control character or escape sequence is shown as
// an escape such as \x1b), so that they can neither break the columns nor
// act on the terminal.
func (rep *Report) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(string(rep.By))+"\tASKS\tANSWERED\tDECLINED\tCANCELLED\tTIMED_OUT\tBY_USER\tDEADLINE\tNOBODY\tP50\tP90\tP99\tRECOMMENDED")
	for i := range rep.Rows {
		writeRow(tw, inertKey(rep.Rows[i].Key), &rep.Rows[i])
	}
	writeRow(tw, "TOTAL", &rep.Total)
	return tw.Flush()
}

func writeRow(w io.Writer, key string, r *Row) {
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", key, r.Asks,
		r.Status[askuser.StatusAnswered], r.Status[askuser.StatusDeclined], r.Status[askuser.StatusCancelled], r.Status[askuser.StatusTimedOut],
		r.AnsweredBy[askuser.ByUser], r.Deadline(), r.Nobody(),
		wait(r.P50), wait(r.P90), wait(r.P99), agreement(r))
}

// inertKey makes a key from the journal safe for one cell.
func inertKey(k string) string {
	if k == "" {
		return "-"
	}
	return strings.ReplaceAll(inert.Line(k), "\t", `\t`)
}

// wait formats a time to answer to the second ("-" for none).
func wait(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	if d < time.Second {
		return "<1s"
	}
	return d.Round(time.Second).String()
}

// agreement formats how often the person took the recommendation: "7/10
// (70%)", or "-" when no answer could.
func agreement(r *Row) string {
	if r.Answered == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", r.Took, r.Answered, 100*r.Agreement())
}

// The chart's geometry, in SVG user units.
const (
	chartLabelW = 220
	chartBarW   = 520
	chartRowH   = 26
	chartBarH   = 18
)

// A chartRow is one row of a bar chart.
type chartRow struct {
	Label string
	Y     int
	Bars  []chartBar
	Value string
}

// A chartBar is one segment of a row's bar.
type chartBar struct {
	X, W  float64
	Class string
	Title string
}

// A chart is one bar chart of the page.
type chart struct {
	ID, Title, Note string
	Legend          []legend
	Rows            []chartRow
	Height          int
}

type legend struct{ Class, Name string }

// endings are the chart's segments of who decided, in order.
var endings = []struct {
	by    askuser.Provenance
	class string
	name  string
}{
	{askuser.ByUser, "user", "the person"},
	{askuser.ByTimeout, "deadline", "the deadline"},
	{askuser.ByUnattended, "nobody", "nobody (unattended)"},
	{askuser.ByPolicy, "policy", "a policy"},
	{askuser.ByRemembered, "remembered", "a remembered decision"},
}

// charts builds the page's charts from the report.
func (rep *Report) charts() []chart {
	rows := rep.Rows
	label := func(r *Row) string {
		if r.Key == "" {
			return "(none)"
		}
		return r.Key
	}
	ended := chart{ID: "ended", Title: "How asks ended: who decided", Note: "Each bar is a group's asks, split by who decided."}
	for _, e := range endings {
		ended.Legend = append(ended.Legend, legend{e.class, e.name})
	}
	agree := chart{ID: "agreement", Title: "How often the person chose the recommended option",
		Note:   "Of the person's answers to questions that recommend an option. Near 100%: a question the agent could stop asking.",
		Legend: []legend{{"took", "took the recommendation"}}}
	waits := chart{ID: "wait", Title: "Time to answer (asks the person decided)", Note: "p50, and p90 behind it.",
		Legend: []legend{{"p50", "p50"}, {"p90", "p90"}}}
	var longest time.Duration
	for i := range rows {
		longest = max(longest, rows[i].P90)
	}
	for i := range rows {
		r := &rows[i]
		y := i * chartRowH
		er := chartRow{Label: label(r), Y: y, Value: fmt.Sprint(r.Asks)}
		x := 0.0
		for _, e := range endings {
			n := r.AnsweredBy[e.by]
			if n == 0 || r.Asks == 0 {
				continue
			}
			w := chartBarW * float64(n) / float64(r.Asks)
			er.Bars = append(er.Bars, chartBar{X: x, W: w, Class: e.class, Title: fmt.Sprintf("%s: %d of %d", e.name, n, r.Asks)})
			x += w
		}
		ended.Rows = append(ended.Rows, er)

		ar := chartRow{Label: label(r), Y: y, Value: agreement(r)}
		if r.Took > 0 {
			ar.Bars = []chartBar{{W: chartBarW * r.Agreement(), Class: "took", Title: agreement(r)}}
		}
		agree.Rows = append(agree.Rows, ar)

		wr := chartRow{Label: label(r), Y: y, Value: wait(r.P50) + " / " + wait(r.P90)}
		if longest > 0 && r.P90 > 0 {
			wr.Bars = []chartBar{
				{W: chartBarW * float64(r.P90) / float64(longest), Class: "p90", Title: "p90 " + wait(r.P90)},
				{W: chartBarW * float64(r.P50) / float64(longest), Class: "p50", Title: "p50 " + wait(r.P50)},
			}
		}
		waits.Rows = append(waits.Rows, wr)
	}
	out := []chart{ended, agree, waits}
	for i := range out {
		out[i].Height = max(len(rows), 1) * chartRowH
	}
	return out
}

// HTML writes the report as one self-contained page — no script, no
// request to anywhere — with a table and three bar charts drawn in inline
// SVG: who decided, how often the person took the recommendation, and the
// time to answer. What came from the journal is escaped.
func (rep *Report) HTML(w io.Writer) error {
	type tableRow struct {
		Key                                 string
		Asks, Answered, Declined, Cancelled int
		TimedOut, User, Deadline, Nobody    int
		P50, P90, P99, Agreement            string
	}
	var rows []tableRow
	add := func(key string, r *Row) {
		rows = append(rows, tableRow{key, r.Asks, r.Status[askuser.StatusAnswered], r.Status[askuser.StatusDeclined], r.Status[askuser.StatusCancelled],
			r.Status[askuser.StatusTimedOut], r.AnsweredBy[askuser.ByUser], r.Deadline(), r.Nobody(),
			wait(r.P50), wait(r.P90), wait(r.P99), agreement(r)})
	}
	for i := range rep.Rows {
		k := rep.Rows[i].Key
		if k == "" {
			k = "(none)"
		}
		add(k, &rep.Rows[i])
	}
	add("Total", &rep.Total)
	since := "all records"
	if !rep.Since.IsZero() {
		since = "asks finalized since " + rep.Since.UTC().Format(time.RFC3339)
	}
	return page.Execute(w, map[string]any{
		"By": string(rep.By), "Since": since, "Rows": rows, "Charts": rep.charts(), "Skipped": rep.Skipped,
		"LabelW": chartLabelW, "BarW": chartBarW, "BarH": chartBarH, "Width": chartLabelW + chartBarW + 140,
	})
}

var page = template.Must(template.New("stats").Funcs(template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"f":   func(v float64) string { return fmt.Sprintf("%.1f", math.Max(v, 0)) },
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>askuser stats by {{.By}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1d1d1f; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.total td { font-weight: 600; }
svg text { font: 12px system-ui, sans-serif; fill: #1d1d1f; }
.user { fill: #2f6fdf; } .deadline { fill: #e0a030; } .nobody { fill: #999; } .policy { fill: #6a4; } .remembered { fill: #8a5cc8; }
.took { fill: #2f9f6f; } .p90 { fill: #f3b9a4; } .p50 { fill: #d0603a; }
.legend span { display: inline-block; margin-right: 1em; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.legend i.user { background: #2f6fdf; } .legend i.deadline { background: #e0a030; } .legend i.nobody { background: #999; }
.legend i.policy { background: #6a4; } .legend i.remembered { background: #8a5cc8; } .legend i.took { background: #2f9f6f; }
.legend i.p90 { background: #f3b9a4; } .legend i.p50 { background: #d0603a; }
</style>
</head>
<body>
<h1>askuser decision statistics, by {{.By}}</h1>
<p>{{.Since}}{{if .Skipped}}; {{.Skipped}} unreadable records skipped{{end}}.</p>
<table id="figures">
<thead><tr><th>{{.By}}</th><th>asks</th><th>answered</th><th>declined</th><th>cancelled</th><th>timed out</th><th>by the person</th><th>by the deadline</th><th>nobody</th><th>p50</th><th>p90</th><th>p99</th><th>took the recommendation</th></tr></thead>
<tbody>
{{range $i, $r := .Rows}}<tr{{if eq (add $i 1) (len $.Rows)}} class="total"{{end}}><td>{{$r.Key}}</td><td>{{$r.Asks}}</td><td>{{$r.Answered}}</td><td>{{$r.Declined}}</td><td>{{$r.Cancelled}}</td><td>{{$r.TimedOut}}</td><td>{{$r.User}}</td><td>{{$r.Deadline}}</td><td>{{$r.Nobody}}</td><td>{{$r.P50}}</td><td>{{$r.P90}}</td><td>{{$r.P99}}</td><td>{{$r.Agreement}}</td></tr>
{{end}}</tbody>
</table>
{{range .Charts}}<section>
<h2>{{.Title}}</h2>
<p>{{.Note}}</p>
<p class="legend">{{range .Legend}}<span><i class="{{.Class}}"></i>{{.Name}}</span>{{end}}</p>
<svg class="chart" id="chart-{{.ID}}" role="img" aria-label="{{.Title}}" width="{{$.Width}}" height="{{.Height}}" viewBox="0 0 {{$.Width}} {{.Height}}">
{{range .Rows}}<g transform="translate(0,{{.Y}})">
<text x="0" y="{{$.BarH}}" class="label">{{.Label}}</text>
{{range .Bars}}<rect class="bar {{.Class}}" x="{{f .X | printf "%s"}}" y="4" width="{{f .W}}" height="{{$.BarH}}" transform="translate({{$.LabelW}},0)"><title>{{.Title}}</title></rect>
{{end}}<text x="{{add $.LabelW $.BarW}}" dx="8" y="{{$.BarH}}">{{.Value}}</text>
</g>
{{end}}</svg>
</section>
{{end}}</body>
</html>
`))
