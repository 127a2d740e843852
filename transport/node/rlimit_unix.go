//go:build unix

package node

import "syscall"

// descriptorLimit is the process's limit on open files (its soft RLIMIT_NOFILE, which
// the Go runtime raises to the hard limit at start); 0 when unknown.
func descriptorLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
