package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"relayer/workers/devchain/nodetest"
)

// dashboardCases is how many cases testdata/ui/dashboard.mjs runs.
const dashboardCases = 7

// TestTheDashboardWorksInARealBrowser drives /ui in headless Chromium (Debian's chromium package,
// through playwright-core) against serve on the development chain with the audit endpoints
// closed: the page loads and connects with no console error, a job submitted through the API
// appears and reaches completed on the page, its timeline opens, a change of D made on the page
// is what /admin/config then says, and a wrong admin or operator token is refused with a clear
// message.
func TestTheDashboardWorksInARealBrowser(t *testing.T) {
	node, _, chromium := nodetest.Browser(t)
	const (
		adminToken    = "dashboard-admin-token-0123456789abcdef"
		operatorToken = "dashboard-operator-token-0123456789abcdef"
	)
	withEnv(t, "RELAYER_ADMIN_TOKEN="+adminToken, "RELAYER_OPERATOR_TOKEN="+operatorToken, "RELAYER_API_AUDIT_OPEN=false")
	url, _, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--devchain-rpc", freeLoopbackAddr(t))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "ui", "dashboard.mjs"))
	cmd.Env = append(os.Environ(), "RELAYER_URL="+url, "OPERATOR_TOKEN="+operatorToken, "ADMIN_TOKEN="+adminToken, "CHROMIUM="+chromium)
	runNodeCases(t, "the dashboard", cmd, dashboardCases, stderr)
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
	for _, secret := range []string{adminToken, operatorToken} {
		if strings.Contains(stderr.String(), secret) {
			t.Error("a token reached serve's log")
		}
	}
}
