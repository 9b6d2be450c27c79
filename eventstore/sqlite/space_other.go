//go:build !unix

package sqlite

// freeBytes cannot tell the room left on this system: -1.
func freeBytes(string) (int64, error) { return -1, nil }
