package callback

import "time"

// Clock is the dispatcher's time: Now stamps attempts and due times, AfterFunc arms
// the wake-up for the next due delivery. Tests inject a fake one to run the
// 1 m … 12 h schedule exactly without waiting.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is an armed wake-up.
type Timer interface{ Stop() bool }

// RealClock is wall time (now, e.g. the node's clock, for Now; real timers).
func RealClock(now func() time.Time) Clock {
	if now == nil {
		now = time.Now
	}
	return realClock{now}
}

type realClock struct{ now func() time.Time }

func (c realClock) Now() time.Time                            { return c.now() }
func (c realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
