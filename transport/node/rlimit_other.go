//go:build !unix

package node

// descriptorLimit is unknown here: the stream cap is then --max-open-streams alone.
func descriptorLimit() int { return 0 }
