package workers

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
)

// shard is the part of the jobs one engine drives when a fleet signs with several keys (Leader):
// the jobs are split over the keys by their id, and each key's engine drives only its own, under
// that key's lease, with its share of C and D. The zero shard (count 0 or 1) drives every job.
type shard struct {
	index, count int
	// key names the shard's streams (lease, dispatcher checkpoint, block cursor); empty for the
	// one engine of a single key, which keeps the names a single engine always had.
	key string
}

// owns tells whether the job is this shard's.
func (s shard) owns(id domain.JobID) bool {
	return s.count <= 1 || shardOf(id, s.count) == s.index
}

// ownsFunc is owns, or nil when the shard drives every job.
func (s shard) ownsFunc() func(domain.JobID) bool {
	if s.count <= 1 {
		return nil
	}
	return s.owns
}

// shardOf is the shard of n that drives job id. Job ids are content hashes or random, so the
// first eight bytes spread the jobs evenly.
func shardOf(id domain.JobID, n int) int {
	return int(binary.BigEndian.Uint64(id[:8]) % uint64(n))
}

// KeyOf is the key that drives job id in a fleet signing with keys (Leader): the jobs are split
// over the keys in the order of their addresses, whatever the order of keys. With one key or
// none it is keys' first or the zero address.
func KeyOf(id domain.JobID, keys []common.Address) common.Address {
	if len(keys) == 0 {
		return common.Address{}
	}
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, func(a, b common.Address) int { return a.Cmp(b) })
	return sorted[shardOf(id, len(sorted))]
}

// name is base for the whole, and base plus the shard's key for a shard of several.
func (s shard) name(base string) string {
	if s.key == "" {
		return base
	}
	return base + "-" + strings.ToLower(s.key)
}

// natsPrefix is the NATS prefix of this shard's messages: base (cut to leave room) and the first
// eight hex digits of the key's address, within NATSConfig.Prefix's 32 characters.
func (s shard) natsPrefix(base string) string {
	if len(base) > 23 {
		base = base[:23]
	}
	return base + "-" + strings.TrimPrefix(s.key, "0x")[:8]
}

// concurrency is this shard's share of C readiness checks at once: C split as evenly as whole
// checks allow (the first C mod n shards take one more), and at least one, so that no shard
// stalls; C below the number of shards is therefore exceeded (the README says so).
func (s shard) concurrency(c int) int {
	if s.count <= 1 {
		return max(c, 1)
	}
	share := c / s.count
	if s.index < c%s.count {
		share++
	}
	return max(share, 1)
}

// rate is this shard's share of D transaction starts per second: whole starts split as C is
// when D is at least the number of shards (the rate window counts whole starts per second),
// else D/n each (one start per n/D seconds), so that the shards' rates add up to D.
func (s shard) rate(d float64) float64 {
	if s.count <= 1 || !(d > 0) || math.IsInf(d, 0) {
		return d
	}
	if d < float64(s.count) {
		return d / float64(s.count)
	}
	whole := int(math.Min(math.Floor(d), 1e6))
	share := whole / s.count
	if s.index < whole%s.count {
		share++
	}
	return float64(share)
}
