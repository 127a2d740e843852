package chart

// Funnels: the figures of each step of a funnel — its bar's width (its share of the
// largest step), its share of the first step and its conversion from the step
// before — for a caller that draws the steps as a list with a Meter each. Shares
// that cannot be computed (no value, a first or previous step of zero) are NaN.

import "math"

// funnelStep is the figures of one step.
type funnelStep struct {
	Value    float64
	OK       bool    // the step has a value
	Frac     float64 // bar width, 0..1: the value over the largest value
	OfFirst  float64 // the value over the first step's, or NaN
	FromPrev float64 // the value over the previous step's, or NaN
}

// Funnel computes the figures of the steps (the first MaxPoints of them).
func Funnel(values []float64) []funnelStep {
	values = capLen(values, MaxPoints)
	top := 0.0
	for _, v := range values {
		if v, ok := val(v); ok {
			top = max(top, v)
		}
	}
	out := make([]funnelStep, len(values))
	nan := math.NaN()
	for i, raw := range values {
		v, ok := val(raw)
		s := funnelStep{Value: v, OK: ok, OfFirst: nan, FromPrev: nan}
		if ok && top > 0 {
			s.Frac = min(max(v/top, 0), 1)
		}
		if first, okF := val(values[0]); ok && okF && first > 0 {
			s.OfFirst = v / first
		}
		if i > 0 {
			if prev, okP := val(values[i-1]); ok && okP && prev > 0 {
				s.FromPrev = v / prev
			}
		}
		out[i] = s
	}
	return out
}
