package domain

import (
	"fmt"
	"strconv"

	"github.com/google/uuid"
)

// JobID identifies a request for its whole life. It is a UUID; its text form is the canonical
// lowercase 36-character one.
type JobID uuid.UUID

// NewJobID returns a random (version 4) job id.
func NewJobID() JobID { return JobID(uuid.New()) }

// jobIDSpace is the UUID namespace of job ids derived from content hashes.
var jobIDSpace = uuid.MustParse("6f3c2a1e-9b0d-4e57-8c1a-2d7e5f4b3a90")

// JobIDFor is the job id of the generation-th job submitted with content hash hash: a name-based
// (version 5) UUID. Generation 0 is the first job with that content; a submission after it failed
// or timed out gets generation 1, and so on. Identical submissions derive the same id, so the
// job's own stream, appended to with NoStream, is what makes two of them produce one job.
func JobIDFor(hash string, generation uint32) JobID {
	name := make([]byte, 0, len(hash)+11)
	name = append(name, hash...)
	name = append(name, '/')
	name = strconv.AppendUint(name, uint64(generation), 10)
	return JobID(uuid.NewSHA1(jobIDSpace, name))
}

// ParseJobID reads a job id in its canonical text form.
func ParseJobID(s string) (JobID, error) {
	if len(s) != 36 {
		return JobID{}, fmt.Errorf("job id %q: want a UUID like 0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11", s)
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return JobID{}, fmt.Errorf("job id %q: %v", s, err)
	}
	return JobID(u), nil
}

func (id JobID) String() string { return uuid.UUID(id).String() }

// IsZero reports whether id is the all-zero id (no job).
func (id JobID) IsZero() bool { return id == JobID{} }

// Stream is the name of the job's event stream: "request-<jobId>".
func (id JobID) Stream() string { return StreamPrefix + id.String() }

// StreamPrefix starts the name of every request stream.
const StreamPrefix = "request-"

// JobIDFromStream reads the job id out of a request stream's name.
func JobIDFromStream(stream string) (JobID, bool) {
	if len(stream) != len(StreamPrefix)+36 || stream[:len(StreamPrefix)] != StreamPrefix {
		return JobID{}, false
	}
	id, err := ParseJobID(stream[len(StreamPrefix):])
	return id, err == nil
}

func (id JobID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

func (id *JobID) UnmarshalText(b []byte) error {
	v, err := ParseJobID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
