package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"relayer/workers/gateway/contracts"
)

// What nodes other than the development chain's go-ethereum answer cannot be produced on it,
// so these answers come from a JSON-RPC server that replies with them, through go-ethereum's
// real RPC client: the errors are the values the adapter meets in production.
func TestNodeAnswersOfEveryImplementationAreClassified(t *testing.T) {
	t.Parallel()
	errs := contracts.NewDecryption().GetABI().Errors
	pauseID, scenarioID := errs["EnforcedPause"].ID, errs["TestScenarioRevert"].ID
	pause, scenario := hexutil.Encode(pauseID[:4]), hexutil.Encode(scenarioID[:4])
	cases := []struct {
		name   string
		status int    // HTTP status (0: 200 with a JSON-RPC error)
		answer string // the JSON-RPC error object
		want   error
		revert string
	}{
		{"geth nonce too low", 0, `{"code":-32000,"message":"nonce too low: address 0xab, tx: 5 state: 7"}`, ErrNonceTooLow, ""},
		{"geth nonce too low code", 0, `{"code":-38010,"message":"nonce too low"}`, ErrNonceTooLow, ""},
		{"nethermind old nonce", 0, `{"code":-32010,"message":"OldNonce"}`, ErrNonceTooLow, ""},
		{"besu nonce too low", 0, `{"code":-32001,"message":"NONCE_TOO_LOW"}`, ErrNonceTooLow, ""},
		{"nonce too high", 0, `{"code":-38011,"message":"nonce too high"}`, ErrNonceTooHigh, ""},
		{"geth already known", 0, `{"code":-32000,"message":"already known"}`, ErrAlreadyKnown, ""},
		{"nethermind already known", 0, `{"code":-32010,"message":"AlreadyKnown"}`, ErrAlreadyKnown, ""},
		{"besu already known", 0, `{"code":-32000,"message":"TRANSACTION_ALREADY_KNOWN"}`, ErrAlreadyKnown, ""},
		{"replacement underpriced", 0, `{"code":-32000,"message":"replacement transaction underpriced"}`, ErrUnderpriced, ""},
		{"underpriced", 0, `{"code":-32000,"message":"transaction underpriced: tip needed 1, tip permitted 0"}`, ErrUnderpriced, ""},
		{"fee cap below base fee", 0, `{"code":-38012,"message":"max fee per gas less than block base fee"}`, ErrUnderpriced, ""},
		{"insufficient funds", 0, `{"code":-32000,"message":"insufficient funds for gas * price + value"}`, ErrInsufficientFunds, ""},
		{"besu insufficient funds", 0, `{"code":-32004,"message":"UPFRONT_COST_EXCEEDS_BALANCE"}`, ErrInsufficientFunds, ""},
		{"paused", 0, `{"code":3,"message":"execution reverted","data":"` + pause + `"}`, ErrPaused, "EnforcedPause"},
		{"custom revert", 0, `{"code":3,"message":"execution reverted","data":"` + scenario + `"}`, ErrReverted, "TestScenarioRevert"},
		{"unknown revert", 0, `{"code":3,"message":"execution reverted","data":"0xdeadbeef"}`, ErrReverted, "0xdeadbeef"},
		{"revert without data", 0, `{"code":-32000,"message":"execution reverted"}`, ErrReverted, ""},
		{"method not found", 0, `{"code":-32601,"message":"the method eth_sendRawTransactionSync does not exist/is not available"}`, errMethodNotFound, ""},
		{"sync timeout", 0, `{"code":4,"message":"The transaction was added to the transaction pool but wasn't processed in 2s","data":"0x` + fmt.Sprintf("%064x", 1) + `"}`, errSyncTimeout, ""},
		{"rate limit", 0, `{"code":-32005,"message":"rate limit exceeded"}`, ErrTransport, ""},
		{"other error", 0, `{"code":-32602,"message":"invalid argument 0"}`, ErrRejected, ""},
		{"http 503", http.StatusServiceUnavailable, ``, ErrTransport, ""},
		{"http 429", http.StatusTooManyRequests, ``, ErrTransport, ""},
		{"http 401", http.StatusUnauthorized, ``, ErrRejected, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			callErr := nodeAnswer(t, c.status, c.answer)
			te := classifySend(redactor{}, "test", callErr)
			if te.Kind != c.want || te.RevertName() != c.revert {
				t.Fatalf("%v: kind %v, revert %q; want %v, %q", callErr, te.Kind, te.RevertName(), c.want, c.revert)
			}
		})
	}
	te := classifyErr(redactor{}, "test", fmt.Errorf("wrapped: %w", context.Canceled))
	if te.Kind != ErrCanceled || !errors.Is(te, context.Canceled) {
		t.Fatalf("canceled: %v", te)
	}
	// Outside a send, the send-only outcomes are public kinds.
	for internal, public := range map[error]error{errMethodNotFound: ErrRejected, errSyncTimeout: ErrTransport} {
		code := map[error]int{errMethodNotFound: codeMethodNotFound, errSyncTimeout: codeTxSyncTimeout}[internal]
		callErr := nodeAnswer(t, 0, fmt.Sprintf(`{"code":%d,"message":"x"}`, code))
		if te := classifyErr(redactor{}, "call", callErr); te.Kind != public {
			t.Fatalf("%v outside a send: %v, want %v", internal, te.Kind, public)
		}
	}
}

// nodeAnswer makes one call through go-ethereum's RPC client to a server that answers with
// HTTP status (when not 0) or the JSON-RPC error object answer, and returns the client's error.
func nodeAnswer(t *testing.T, status int, answer string) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if status != 0 {
			http.Error(w, http.StatusText(status), status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, req.ID, answer)
	}))
	defer srv.Close()
	client, err := rpc.DialHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	return client.CallContext(context.Background(), nil, "eth_sendRawTransaction", "0x00")
}
