//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// freeBytes is the room the filesystem holding dir has left for an unprivileged writer.
func freeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
