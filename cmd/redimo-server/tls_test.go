package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redimo-go/redimo/internal/testenv"
)

// TestServeTLSOnly runs the program with --tls-addr and a certificate
// made for the test, requiring client certificates (--tls-ca-cert-file),
// and the plaintext listener off (--addr ""): go-redis with a client
// certificate is served, /healthz answers 200, and SIGTERM ends the
// program with status 0. (/healthz's 503 while draining: TestHealth in
// internal/server.)
func TestServeTLSOnly(t *testing.T) {
	endpoint := testenv.NeedEndpoint(t)
	pki := testenv.NewPKI(t)
	logR, logW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"--addr", "", "--tls-addr", "127.0.0.1:0", "--tls-cert-file", pki.CertFile,
			"--tls-key-file", pki.KeyFile, "--tls-ca-cert-file", pki.CAFile, "--endpoint", endpoint,
			"--table", "redimo_server_tls_" + testenv.RandomHex(4), "--create-table", "--metrics-addr", "127.0.0.1:0"}, logW)
		logW.Close()
	}()
	lines := bufio.NewScanner(logR)
	var addr, metricsURL string
	var log []string
	re := regexp.MustCompile(`msg="redimo-server listening \(TLS\)" addr=(\S+)`)
	reMetrics := regexp.MustCompile(`msg=metrics url=(\S+)`)
	for addr == "" && lines.Scan() {
		log = append(log, lines.Text())
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
		if m := reMetrics.FindStringSubmatch(lines.Text()); m != nil {
			metricsURL = m[1]
		}
	}
	require.NotEmpty(t, addr, "no TLS listening line in the log:\n%s", strings.Join(log, "\n"))
	require.NotContains(t, strings.Join(log, "\n"), `msg="redimo-server listening" `, "no plaintext listener")
	go func() { _, _ = io.Copy(io.Discard, logR) }()

	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: &tls.Config{RootCAs: pki.CAs, Certificates: []tls.Certificate{pki.ClientCert}}})
	defer rdb.Close()
	require.Equal(t, int64(2), rdb.SAdd(ctx, "k", "a", "b").Val())
	require.Equal(t, []string{"a", "b"}, rdb.SMembers(ctx, "k").Val())

	healthz := strings.TrimSuffix(metricsURL, "/metrics") + "/healthz"
	status := func() int {
		res, err := http.Get(healthz)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, http.StatusOK, status())
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-exit:
		require.Equal(t, 0, code)
	case <-time.After(20 * time.Second):
		t.Fatal("no exit 20 s after SIGTERM")
	}
}
