package delivery

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"relayer/domain/webhook"
	"relayer/workers/devchain/nodetest"
)

// readmeReceiver is the receiver of README.md's "Webhooks" section: its first js code block.
func readmeReceiver(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Webhooks\n")
	if !ok {
		t.Fatal("README.md has no Webhooks section")
	}
	_, code, ok := strings.Cut(section, "```js\n")
	if !ok {
		t.Fatal("README.md's Webhooks section has no js receiver")
	}
	code, _, _ = strings.Cut(code, "```")
	return code
}

func TestTheREADMEsReceiverVerifiesTheDeliveriesAndPrintsEachTransitionOnce(t *testing.T) {
	node, root := nodetest.Package(t, "standardwebhooks")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "receiver.mjs"), []byte(readmeReceiver(t, root)), 0o600); err != nil {
		t.Fatal(err)
	}
	// `npm install standardwebhooks` beside it, as the README says: here, the repository's.
	if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)

	env := newDT(t)
	id, secret := env.register("http://"+addr+"/relayer", webhook.Filter{})
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "receiver.mjs"))
	cmd.Env = append(os.Environ(), "WEBHOOK_SECRET="+secret, "PORT="+port)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	waitFor(t, 20*time.Second, "the receiver listening", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	s, _ := env.start(dtConfig(), Deps{})
	ids := env.jobs(0, 2)
	waitFor(t, 20*time.Second, "8 deliveries", func() bool { return metric(t, s, "relayer_webhook_deliveries_total", id) >= 8 })
	if f := metric(t, s, "relayer_webhook_delivery_failures_total", id); f != 0 {
		t.Errorf("%v deliveries refused by the README's receiver:\n%s", f, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var want []string
	for _, j := range ids {
		want = append(want,
			fmt.Sprintf("%s input-proof - -> processing", j),
			fmt.Sprintf("%s input-proof processing -> tx_in_flight", j),
			fmt.Sprintf("%s input-proof tx_in_flight -> receipt_received", j),
			fmt.Sprintf("%s input-proof receipt_received -> completed", j))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the README's receiver printed\n%s\nwant\n%s", out.String(), strings.Join(want, "\n"))
	}
}
