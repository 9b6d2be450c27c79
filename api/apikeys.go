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
	"strings"
	"sync"
	"time"

	"relayer/api/ratelimit"
)

// The registry of issued API keys (Config.APIKeyFile). The file holds, one per line, a client's
// name and the SHA-256 of its key in hex, never the key itself:
//
//	# name      sha256(key), e.g. printf %s "$KEY" | sha256sum
//	acme-prod   9f86d081884c7d659a2feb5d... (64 hex digits)
//
// A request whose X-API-Key is in the file is that client for the rate limits; a request with a
// key that is not is refused with 401 (an invented key is nobody); a request without a key is
// its address. The file is read again when it changes (checked at most every
// apiKeysRecheck), so keys are issued, rotated and revoked without a restart; a file that no
// longer parses leaves the keys as they were, and says so in the log.

const apiKeysRecheck = 2 * time.Second

var (
	apiKeyNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	apiKeyHashPattern = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

type apiKeyring struct {
	path string
	log  *slog.Logger

	mu      sync.RWMutex
	byHash  map[[sha256.Size]byte]string
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

func readAPIKeys(path string) (map[[sha256.Size]byte]string, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("api key file: %w", err)
	}
	return parseAPIKeys(path, data)
}

// parseAPIKeys reads the registry in data (the file at path) and returns it with its stamp, the
// SHA-256 of data.
func parseAPIKeys(path string, data []byte) (map[[sha256.Size]byte]string, string, error) {
	byHash := map[[sha256.Size]byte]string{}
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
		case len(f) != 2:
			problems = append(problems, fmt.Sprintf("line %d: want a name and the key's SHA-256 (64 hex digits), got %d fields", n, len(f)))
			continue
		case !apiKeyNamePattern.MatchString(f[0]):
			problems = append(problems, fmt.Sprintf("line %d: the name must be letters, digits, '.', '_' or '-' (at most 64)", n))
			continue
		case !apiKeyHashPattern.MatchString(f[1]):
			problems = append(problems, fmt.Sprintf("line %d: %s's hash must be 64 hex digits (the SHA-256 of the key, not the key)", n, f[0]))
			continue
		}
		var h [sha256.Size]byte
		_, _ = hex.Decode(h[:], []byte(strings.ToLower(f[1])))
		if other, dup := byHash[h]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s has the same key as %s", n, f[0], other))
			continue
		}
		if first, dup := names[f[0]]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s is already on line %d", n, f[0], first))
			continue
		}
		names[f[0]] = n
		byHash[h] = f[0]
	}
	if len(problems) > 0 {
		return nil, "", fmt.Errorf("api key file %s: %s", path, strings.Join(problems, "; "))
	}
	return byHash, fmt.Sprintf("%x", sha256.Sum256(data)), nil
}

// lookup returns the client key names, reading the file again when it changed.
func (k *apiKeyring) lookup(key string, now time.Time) (string, bool) {
	k.refresh(now)
	h := sha256.Sum256([]byte(key))
	k.mu.RLock()
	defer k.mu.RUnlock()
	name, ok := k.byHash[h]
	return name, ok
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
// guessing keys must not lock the operators out).
func (s *Server) apiKeyGate(next http.HandlerFunc) http.HandlerFunc {
	if s.apiKeys == nil {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(ratelimit.APIKeyHeader)
		if key == "" {
			next(w, r)
			return
		}
		if _, ok := s.apiKeys.lookup(key, s.now()); ok {
			next(w, r)
			return
		}
		client := s.limiter.AddressKey(r)
		if s.refusedTooOften(w, r, &s.keyFails, client) {
			return
		}
		s.noteRefusal(r, &s.keyFails, client, "refused an unknown API key")
		writeError(w, r, http.StatusUnauthorized, labelUnauthorized, "unknown API key (X-API-Key): ask the operator for one, or send none", nil)
	}
}

// CheckAPIKeyFile reads an API key file as the server will, for a configuration check at start.
func CheckAPIKeyFile(path string) error {
	_, _, err := readAPIKeys(path)
	return err
}
