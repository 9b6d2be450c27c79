package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
)

// Store is where an archive's files live: segments and the manifest, each under a flat name
// (no slashes). Implementations are safe for concurrent use.
type Store interface {
	// Get returns the whole content of the file name, or an error matching ErrNotFound.
	Get(ctx context.Context, name string) ([]byte, error)
	// Put stores data under name, replacing any file of that name, atomically: a reader sees the
	// old content or the new one, whole, never a part; when Put returns the data is durable.
	Put(ctx context.Context, name string, data []byte) error
	// Delete removes the file name; removing a file that does not exist is not an error.
	Delete(ctx context.Context, name string) error
	// List returns the names of the files in the store, in lexical order.
	List(ctx context.Context) ([]string, error)
	// String names the store for messages and logs, without credentials.
	String() string
}

// ErrNotFound reports a file the store does not have.
var ErrNotFound = errors.New("not found")

// OpenExistingURL is OpenURL for the commands that only read an archive: a directory must
// exist (it is not made: a mistyped path is an error, not an empty archive made on the spot).
func OpenExistingURL(ctx context.Context, location string) (Store, error) {
	return openURL(ctx, location, existingDir)
}

// existingDir opens the directory path as a store; it must exist.
func existingDir(path string) (*Dir, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("archive directory %s: no such directory", path)
	case err != nil:
		return nil, fmt.Errorf("archive directory: %w", err)
	case !info.IsDir():
		return nil, fmt.Errorf("archive directory %s: not a directory", path)
	}
	return &Dir{path: path}, nil
}

// OpenURL opens the archive store named by location: a directory path (made when missing), or
// s3://bucket/prefix with optional query parameters endpoint (an S3-compatible server's base URL,
// which switches to path-style addressing) and region. Credentials come from the standard AWS
// chain (environment, shared configuration, instance role), never from the URL: a URL with a
// user, a password or any parameter other than endpoint and region is refused, and the refusal
// does not repeat it.
func OpenURL(ctx context.Context, location string) (Store, error) {
	return openURL(ctx, location, NewDir)
}

// openURL is OpenURL with openDir opening a directory location.
func openURL(ctx context.Context, location string, openDir func(string) (*Dir, error)) (Store, error) {
	if location == "" {
		return nil, errors.New("archive location: empty (a directory or s3://bucket/prefix)")
	}
	if !strings.Contains(location, "://") {
		return openDir(location)
	}
	u, err := url.Parse(location)
	if err != nil {
		// url.Parse's error quotes the URL, which may hold a secret: say what is wrong only.
		return nil, errors.New("archive location: not a valid URL")
	}
	if u.User != nil {
		return nil, errors.New("archive location: credentials in the URL are refused; " +
			"give them to the standard AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role)")
	}
	switch u.Scheme {
	case "file":
		return openDir(u.Path)
	case "s3":
	default:
		return nil, fmt.Errorf("archive location: scheme %q: want a directory path or s3://bucket/prefix", u.Scheme)
	}
	cfg := S3Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	q := u.Query()
	for key := range q {
		switch key {
		case "endpoint":
			cfg.Endpoint = q.Get(key)
		case "region":
			cfg.Region = q.Get(key)
		default:
			return nil, fmt.Errorf("archive location: parameter %q is not known (endpoint and region are; credentials come from the AWS chain)", key)
		}
	}
	if cfg.Endpoint != "" {
		e, err := url.Parse(cfg.Endpoint)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, errors.New("archive location: endpoint must be an http:// or https:// URL")
		}
		if e.User != nil {
			return nil, errors.New("archive location: credentials in the endpoint are refused; give them to the standard AWS chain")
		}
	}
	return NewS3(ctx, cfg)
}
