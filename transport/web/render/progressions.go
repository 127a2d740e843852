package render

// The blocks of time and progress: timeline (dated events), stepper (steps with
// the current one marked) and countdown (time left to a moment, ticking in the
// browser). The rule they keep: state is never carried by colour alone (a marker
// AND words, visible or visually hidden), times are read by the rule the catalog
// checks at publish (formats.Timestamp) and shown in UTC with the exact value in
// <time datetime>, and text that changes every second is never announced to screen
// readers (only the switch to expired is).

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"folio/actors/model/formats"
)

func init() {
	register("timeline", viewTimeline)
	register("stepper", viewStepper)
	register("countdown", viewCountdown)
}

// when is a moment read from a timestamp (formats.Timestamp).
type when struct {
	T        time.Time // in UTC
	Zoned    bool      // the text named a zone (Z or ±hh:mm)
	DateOnly bool
}

// parseWhen reads a timestamp by the rule the block catalog checks at publish
// (formats.Timestamp: a date, or an RFC 3339 date-time whose zone and seconds may
// be left out; a leap second reads as :59), so what the agent was warned about is
// shown as the agent wrote it, not guessed at.
func parseWhen(s string) (when, bool) {
	if t, ok := formats.Date(s); ok {
		return when{T: t, DateOnly: true}, true
	}
	if t, zoned, ok := formats.DateTimeZone(s); ok {
		return when{T: t, Zoned: zoned}, true
	}
	return when{}, false
}

// Text is the moment as people read it: "1 May 2024, 14:30 UTC" ("UTC" only when
// the text named a zone; seconds only when not zero), or "1 May 2024".
func (w when) Text() string {
	if w.DateOnly {
		return w.T.Format("2 Jan 2006")
	}
	layout := "2 Jan 2006, 15:04"
	if w.T.Second() != 0 {
		layout += ":05"
	}
	if w.Zoned {
		layout += " UTC"
	}
	return w.T.Format(layout)
}

// Attr is the moment as a valid datetime attribute value.
func (w when) Attr() string {
	switch {
	case w.DateOnly:
		return w.T.Format("2006-01-02")
	case w.Zoned:
		return w.T.Format("2006-01-02T15:04:05Z")
	}
	return w.T.Format("2006-01-02T15:04:05")
}

// ---- timeline ----

type timelineView struct {
	Events []timelineEvent
	More   int
}

type timelineEvent struct {
	When     string // readable time, or the agent's text when it does not parse
	Datetime string // "" when the time did not parse
	Event    string
	Detail   string
	Status   string // completed, current, pending or ""
	Icon     template.HTML
}

func viewTimeline(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Events []struct {
			Time   Scalar `json:"time"`
			Event  Scalar `json:"event"`
			Detail Scalar `json:"detail"`
			Status string `json:"status"`
			Icon   string `json:"icon"`
		} `json:"events"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	var v timelineView
	events := d.Events
	if len(events) > maxItems {
		v.More = len(events) - maxItems
		events = events[:maxItems]
	}
	for _, e := range events {
		ev := timelineEvent{Event: firstText(e.Event.String(), "(untitled event)"), Detail: strings.TrimSpace(e.Detail.String()), Icon: Icon(e.Icon)}
		switch e.Status {
		case "completed", "current", "pending":
			ev.Status = e.Status
		}
		if w, ok := parseWhen(e.Time.String()); ok {
			ev.When, ev.Datetime = w.Text(), w.Attr()
		} else {
			ev.When = strings.TrimSpace(e.Time.String())
		}
		v.Events = append(v.Events, ev)
	}
	return v, nil
}

// ---- stepper ----

type stepperView struct {
	Steps   []stepView
	Current int // 1-based number of the current step, 0 when all are done
	Total   int
	More    int
}

type stepView struct {
	N           int
	Label       string
	Description string
	State       string // done, current, todo
}

func viewStepper(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Current Number `json:"current"`
		Steps   []struct {
			Label       Scalar `json:"label"`
			Description Scalar `json:"description"`
		} `json:"steps"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	cur := 0
	if d.Current.OK && !math.IsNaN(d.Current.V) && d.Current.V > 0 {
		cur = int(math.Min(math.Floor(d.Current.V), float64(len(d.Steps)))) // past the end: every step done
	}
	v := stepperView{Total: len(d.Steps)}
	steps := d.Steps
	if len(steps) > maxItems {
		v.More = len(steps) - maxItems
		steps = steps[:maxItems]
	}
	if cur < len(d.Steps) {
		v.Current = cur + 1
	}
	for i, s := range steps {
		st := stepView{N: i + 1, Label: firstText(s.Label.String(), fmt.Sprintf("Step %d", i+1)), Description: strings.TrimSpace(s.Description.String())}
		switch {
		case i < cur:
			st.State = "done"
		case i == cur:
			st.State = "current"
		default:
			st.State = "todo"
		}
		v.Steps = append(v.Steps, st)
	}
	return v, nil
}

// ---- countdown ----

type countdownView struct {
	Style     string // info, warning, danger
	Target    string // the target as a datetime attribute (UTC), "" when unreadable
	Until     string // the target as people read it
	Raw       string // the agent's target text when it does not parse
	Remaining string // the time left at Options.Now, in words
	Expired   bool
	Message   string // shown once the target has passed
	Stopped   bool   // the page was decided: Remaining is what was left then, and it does not tick
}

func viewCountdown(c *Ctx, data json.RawMessage) (any, error) {
	var d struct {
		Target         Scalar `json:"target"`
		ExpiredMessage Scalar `json:"expired_message"`
		Style          string `json:"style"`
	}
	if err := decode(data, &d); err != nil {
		return nil, err
	}
	v := countdownView{Style: d.Style, Message: firstText(d.ExpiredMessage.String(), "Time is up")}
	if v.Style != "warning" && v.Style != "danger" {
		v.Style = "info"
	}
	w, ok := parseWhen(d.Target.String())
	if !ok {
		v.Raw = strings.TrimSpace(d.Target.String())
		return v, nil
	}
	w.Zoned = true // a target without a zone is read as UTC, so the browser agrees
	v.Target, v.Until = w.Attr(), w.Text()
	now := c.Options().Now
	if now.IsZero() {
		now = time.Now()
	}
	if st := c.Options().Stopped; st != nil {
		now, v.Stopped = *st, true
	}
	left := w.T.Unix() - now.Unix() // seconds; Unix avoids Duration's 292-year limit
	if left <= 0 {
		v.Expired = true
	} else {
		v.Remaining = remainingText(left)
	}
	return v, nil
}

// remainingText says a positive number of seconds in its two largest units:
// "2 days 3 hours", "5 hours", "14 minutes 5 seconds".
func remainingText(secs int64) string {
	units := []struct {
		n    int64
		name string
	}{{86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}}
	var parts []string
	for _, u := range units {
		if q := secs / u.n; q > 0 || len(parts) > 0 {
			if q > 0 {
				name := u.name
				if q != 1 {
					name += "s"
				}
				parts = append(parts, formatNumber(float64(q))+" "+name)
			}
			secs -= q * u.n
			if len(parts) == 2 || (len(parts) == 1 && q == 0) {
				break
			}
		}
	}
	return strings.Join(parts, " ")
}
