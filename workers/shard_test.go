package workers

import (
	"fmt"
	"testing"

	"relayer/domain"
)

func TestTheShardsSharesAddUpToCAndD(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for c := 0; c <= 12; c++ {
			sum := 0
			for i := range n {
				share := shard{index: i, count: n}.concurrency(c)
				if share < 1 {
					t.Fatalf("C=%d over %d shards: shard %d gets %d checks, want at least 1", c, n, i, share)
				}
				sum += share
			}
			if want := max(c, n); sum != want {
				t.Errorf("C=%d over %d shards: the shares add up to %d, want %d", c, n, sum, want)
			}
		}
		for _, d := range []float64{0.5, 1, 2, 2.5, 3, 7, 10, 15, 15.5, 100} {
			sum := 0.0
			for i := range n {
				sum += shard{index: i, count: n}.rate(d)
			}
			want := d
			if d >= float64(n) && n > 1 {
				want = float64(int(d)) // whole starts per second, as the rate window counts them
			}
			if diff := sum - want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("D=%g over %d shards: the shares add up to %g, want %g", d, n, sum, want)
			}
		}
	}
}

func TestEveryJobHasExactlyOneShardAndTheShardsAreEven(t *testing.T) {
	const n, jobs = 3, 30000
	count := make([]int, n)
	for i := range jobs {
		id := domain.JobIDFor(fmt.Sprintf("%064x", i), 0) // as the API derives them
		owners := 0
		for s := range n {
			if (shard{index: s, count: n}).owns(id) {
				owners++
				count[s]++
			}
		}
		if owners != 1 {
			t.Fatalf("job %s is owned by %d shards", id, owners)
		}
	}
	for s, c := range count {
		if c < jobs/n*95/100 || c > jobs/n*105/100 {
			t.Errorf("shard %d drives %d of %d jobs; want about %d", s, c, jobs, jobs/n)
		}
	}
	if !(shard{}).owns(domain.NewJobID()) {
		t.Error("the whole engine (no shards) owns every job")
	}
}
