package httpapi

import (
	"time"

	"folio/actors/model/ratelimit"
	"folio/transport/status"
)

// setRateHeaders is status.SetRateHeaders: the rate headers, the same on both faces.
var setRateHeaders = status.SetRateHeaders

func ceilSeconds(d time.Duration) int { return ratelimit.CeilSeconds(d) }
