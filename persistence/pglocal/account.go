//go:build linux

package pglocal

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// account is the user the server runs as when we are root, since PostgreSQL refuses
// to run as root: Debian's postgres user. A nil *account means the server runs as
// we do.
type account struct{ uid, gid int }

func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and no postgres user: %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return nil, err
	}
	return &account{uid: uid, gid: gid}, nil
}

// credential runs a process as the account, with no supplementary group: exactly
// the uid and gid that reach checks the directories against.
func (a *account) credential() *syscall.Credential {
	if a == nil {
		return nil
	}
	return &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid)}
}

// own gives dir and everything in it to the account. A directory the account
// already owns is left alone (one stat, however large the cluster).
func (a *account) own(dir string) error {
	if a == nil {
		return nil
	}
	if st, err := os.Stat(dir); err == nil && int(st.Sys().(*syscall.Stat_t).Uid) == a.uid {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, a.uid, a.gid)
	})
}

// reach fails, naming the directory, when the account cannot walk down to dir:
// every directory above it must be searchable (x) by the account's uid or gid.
// Without it initdb and postgres fail later with a less helpful message.
func (a *account) reach(dir string) error {
	if a == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		sys := st.Sys().(*syscall.Stat_t)
		mode := st.Mode().Perm()
		var ok bool
		switch {
		case int(sys.Uid) == a.uid:
			ok = mode&0o100 != 0
		case int(sys.Gid) == a.gid:
			ok = mode&0o010 != 0
		default:
			ok = mode&0o001 != 0
		}
		if !ok {
			return fmt.Errorf("the postgres user (uid %d) cannot enter %s (mode %v): PostgreSQL's data directory %s must be reachable (chmod o+x %s)", a.uid, p, mode, dir, p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
