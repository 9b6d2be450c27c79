package workers

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// STYLE: log lines about a job carry it as job_id, with its correlation_id. A log call of the
// workers (their packages included) that names the job "job", or names it job_id without a
// correlation_id, fails this test.
func TestLogLinesNameTheirJobJobIDAndCorrelationID(t *testing.T) {
	call := regexp.MustCompile(`(?s)\.(Debug|Info|Warn|Error|logChain)\([^\n]*"job",`)
	withID := regexp.MustCompile(`\.(Debug|Info|Warn|Error|logChain)\([^\n]*"job_id",[^\n]*`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range call.FindAllIndex(b, -1) {
			line := 1 + strings.Count(string(b[:m[0]]), "\n")
			t.Errorf("%s:%d: a log line names its job \"job\"; STYLE wants job_id", path, line)
		}
		for _, m := range withID.FindAllIndex(b, -1) {
			if !strings.Contains(string(b[m[0]:m[1]]), `"correlation_id",`) {
				line := 1 + strings.Count(string(b[:m[0]]), "\n")
				t.Errorf("%s:%d: a log line names its job_id without its correlation_id", path, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
