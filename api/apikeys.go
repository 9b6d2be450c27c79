package api

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"relayer/api/ratelimit"
)

// The registry of issued API keys (Config.APIKeyFile). The file holds, one per line, a client's
// name and the SHA-256 of its key in hex, never the key itself, then optionally limits of the
// client's own as name=value fields:
//
//	# name      sha256(key), e.g. printf %s "$KEY" | sha256sum    own limits (optional)
//	acme-prod   9f86d081884c7d659a2feb5d... (64 hex digits)
//	partner     2c26b46b68ffc68ff99b453c... (64 hex digits)     write=1000 concurrency=64
//
// write is the client's rolling_limit for writes (submissions), read its rolling_limit for reads
// (polls), concurrency its concurrency_limit for both; each a whole number from 0 (that limit
// off for this client) to ratelimit.MaxLimit. A limit not given is the server's, as the admin
// API sets it; the window lengths, slot timeouts and retry policy are always the server's.
//
// A request whose X-API-Key is in the file is that client for the rate limits, with its own
// limits; a request with a key that is not is refused with 401 (an invented key is nobody); a
// request without a key is its address. The file is read again when it changes (checked at most
// every apiKeysRecheck), so keys are issued, rotated and revoked, and their limits changed,
// without a restart; a file that no longer parses leaves the keys as they were, and says so in
// the log.

const apiKeysRecheck = 2 * time.Second

var (
	apiKeyNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	apiKeyHashPattern = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	// apiKeyFieldPattern is what a field's name may look like to be repeated in a problem.
	apiKeyFieldPattern = regexp.MustCompile(`^[a-z_]{1,16}$`)
)

type apiKeyring struct {
	path string
	log  *slog.Logger

	mu sync.RWMutex
	// byHash: a file's clients by their key's hash, replaced whole when the file changes (so the
	// limiter's cache in each Client follows the file).
	byHash  map[[sha256.Size]byte]*ratelimit.Client
	stamp   string // the SHA-256 of the file's content when read
	checked time.Time
}

// loadAPIKeys reads the registry at path; every problem is reported with its line.
func loadAPIKeys(path string, log *slog.Logger) (*apiKeyring, error) {
	k := &apiKeyring{path: path, log: log}
	byHash, stamp, err := readAPIKeys(path)
	if err != nil {
		return nil, err
	}
	k.byHash, k.stamp = byHash, stamp
	return k, nil
}

func readAPIKeys(path string) (map[[sha256.Size]byte]*ratelimit.Client, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("api key file: %w", err)
	}
	return parseAPIKeys(path, data)
}

// parseAPIKeys reads the registry in data (the file at path) and returns it with its stamp, the
// SHA-256 of data.
func parseAPIKeys(path string, data []byte) (map[[sha256.Size]byte]*ratelimit.Client, string, error) {
	byHash := map[[sha256.Size]byte]*ratelimit.Client{}
	names := map[string]int{}
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		switch {
		case len(f) < 2:
			problems = append(problems, fmt.Sprintf("line %d: want a name and the key's SHA-256 (64 hex digits), got %d fields", n, len(f)))
			continue
		case !apiKeyNamePattern.MatchString(f[0]):
			problems = append(problems, fmt.Sprintf("line %d: the name must be letters, digits, '.', '_' or '-' (at most 64)", n))
			continue
		case !apiKeyHashPattern.MatchString(f[1]):
			problems = append(problems, fmt.Sprintf("line %d: %s's hash must be 64 hex digits (the SHA-256 of the key, not the key)", n, f[0]))
			continue
		}
		limits, issues := parseKeyLimits(f[2:])
		for _, issue := range issues {
			problems = append(problems, fmt.Sprintf("line %d: %s: %s", n, f[0], issue))
		}
		if len(issues) > 0 {
			continue
		}
		var h [sha256.Size]byte
		_, _ = hex.Decode(h[:], []byte(strings.ToLower(f[1])))
		if other, dup := byHash[h]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s has the same key as %s", n, f[0], other.Name))
			continue
		}
		if first, dup := names[f[0]]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s is already on line %d", n, f[0], first))
			continue
		}
		names[f[0]] = n
		byHash[h] = &ratelimit.Client{Name: f[0], Limits: limits}
	}
	if len(problems) > 0 {
		return nil, "", fmt.Errorf("api key file %s: %s", path, strings.Join(problems, "; "))
	}
	return byHash, fmt.Sprintf("%x", sha256.Sum256(data)), nil
}

// The fields of a key's own limits.
const (
	keyFieldWrite       = "write"
	keyFieldRead        = "read"
	keyFieldConcurrency = "concurrency"
)

// parseKeyLimits reads the name=value fields after a key's hash, returning every issue. The
// issues never repeat a value that is not a number: a key pasted in the wrong place must not
// reach the log.
func parseKeyLimits(fields []string) (ratelimit.ClientLimits, []string) {
	var l ratelimit.ClientLimits
	var issues []string
	seen := map[string]bool{}
	for i, field := range fields {
		name, value, ok := strings.Cut(field, "=")
		if !ok {
			issues = append(issues, fmt.Sprintf("field %d after the hash is not name=value (write=, read= or concurrency=)", i+1))
			continue
		}
		var dst []**int
		switch name {
		case keyFieldWrite:
			dst = []**int{&l.Write.RollingLimit}
		case keyFieldRead:
			dst = []**int{&l.Read.RollingLimit}
		case keyFieldConcurrency:
			dst = []**int{&l.Write.ConcurrencyLimit, &l.Read.ConcurrencyLimit}
		default:
			issues = append(issues, fmt.Sprintf("unknown field %s (known: write, read, concurrency)", showField(name)))
			continue
		}
		if seen[name] {
			issues = append(issues, fmt.Sprintf("%s is given twice", name))
			continue
		}
		seen[name] = true
		v, err := strconv.Atoi(value)
		if err != nil || v < 0 || v > ratelimit.MaxLimit {
			shown := "a value that is not a whole number"
			if err == nil {
				shown = strconv.Itoa(v)
			}
			issues = append(issues, fmt.Sprintf("%s must be a whole number from 0 (off for this key) to %d, got %s", name, ratelimit.MaxLimit, shown))
			continue
		}
		for _, p := range dst {
			*p = &v
		}
	}
	return l, issues
}

// showField shows an unknown field's name in a problem when it looks like a misspelt one; anything
// else may be part of a key (base64 ends in "="), so it is not repeated.
func showField(name string) string {
	if apiKeyFieldPattern.MatchString(name) {
		return strconv.Quote(name)
	}
	return "before '='"
}

// lookup returns the name of the client key names, reading the file again when it changed.
func (k *apiKeyring) lookup(key string, now time.Time) (string, bool) {
	c, ok := k.client(key, now)
	if !ok {
		return "", false
	}
	return c.Name, true
}

// client returns the client key names, with its own limits, reading the file again when it
// changed.
func (k *apiKeyring) client(key string, now time.Time) (*ratelimit.Client, bool) {
	k.refresh(now)
	h := sha256.Sum256([]byte(key))
	k.mu.RLock()
	defer k.mu.RUnlock()
	c, ok := k.byHash[h]
	return c, ok
}

func (k *apiKeyring) refresh(now time.Time) {
	k.mu.RLock()
	due := now.Sub(k.checked) >= apiKeysRecheck || now.Before(k.checked)
	k.mu.RUnlock()
	if !due {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.checked = now
	data, err := os.ReadFile(k.path)
	if err != nil {
		k.log.Error("api key file: cannot be read; the keys stay as they were", "path", k.path, "err", err)
		return
	}
	// By content, not by size and time: a rotation that swaps one hash for another keeps the
	// size, and copies may keep the time.
	if fmt.Sprintf("%x", sha256.Sum256(data)) == k.stamp {
		return
	}
	byHash, stamp, err := parseAPIKeys(k.path, data)
	if err != nil {
		k.log.Error("api key file changed but does not parse; the keys stay as they were", "err", err)
		return
	}
	k.byHash, k.stamp = byHash, stamp
	k.log.Info("api key file read again", "path", k.path, "keys", len(byHash))
}

// apiKeyGate refuses a request whose X-API-Key is not an issued key: 401, logged without the key,
// counted per client so that guessing slows down (apart from the admin's count: a client
// guessing keys must not lock the operators out). An issued key's client goes on in the
// request's context (ratelimit.ContextWithClient), so the limiter keys the request by the client
// the gate found, with the client's own limits, and does not look the key up again.
func (s *Server) apiKeyGate(next http.HandlerFunc) http.HandlerFunc {
	if s.apiKeys == nil {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		key := ratelimit.APIKey(r)
		if key == "" {
			next(w, r)
			return
		}
		if c, ok := s.apiKeys.client(key, s.now()); ok {
			next(w, r.WithContext(ratelimit.ContextWithClient(r.Context(), c)))
			return
		}
		client := s.limiter.AddressKey(r)
		if s.refusedTooOften(w, r, &s.keyFails, client) {
			return
		}
		if wait := s.noteRefusal(w, r, &s.keyFails, client, "refused an unknown API key"); wait > 0 {
			writeRefusedTooOften(w, r, wait)
			return
		}
		writeError(w, r, http.StatusUnauthorized, labelUnauthorized, "unknown API key (X-API-Key): ask the operator for one, or send none", nil)
	}
}

// CheckAPIKeyFile reads an API key file as the server will, for a configuration check at start.
func CheckAPIKeyFile(path string) error {
	_, _, err := readAPIKeys(path)
	return err
}
