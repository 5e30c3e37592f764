package server_test

import (
	"context"
	"crypto/tls"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/redimo-go/redimo/internal/testenv"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// startTLSServer serves ts's server on a TLS listener too, with the
// configuration server.TLSConfig builds from the files.
func startTLSServer(t *testing.T, ts *testServer, certFile, keyFile, caFile string) string {
	t.Helper()
	cfg, err := server.TLSConfig(certFile, keyFile, caFile)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = ts.Serve(tls.NewListener(ln, cfg)) }() // ends with ts's Shutdown
	return ln.Addr().String()
}

// TestTLS: a server with a self-signed certificate made here answers
// redis-cli --tls (with --cacert, and with --insecure) and go-redis over
// TLS; plaintext on its TLS port fails; with a client CA, a client
// without a certificate is refused and one with a certificate signed by
// that CA is served, as redis-server's tls-auth-clients yes.
func TestTLS(t *testing.T) {
	cli := needBinary(t, "redis-cli")
	pki := testenv.NewPKI(t)
	ts := startServer(t, nil, server.Config{})
	addr := startTLSServer(t, ts, pki.CertFile, pki.KeyFile, "")
	host, port, _ := net.SplitHostPort(addr)
	for _, trust := range [][]string{{"--cacert", pki.CAFile}, {"--insecure"}} {
		out, err := exec.Command(cli, append([]string{"--tls", "-h", host, "-p", port}, append(trust, "PING")...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, "PONG\n", string(out), "redis-cli --tls %s", trust[0])
	}
	out, _ := exec.Command(cli, "-h", host, "-p", port, "PING").CombinedOutput()
	require.NotContains(t, string(out), "PONG", "plaintext on the TLS port")

	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, TLSConfig: &tls.Config{RootCAs: pki.CAs}})
		key := "tls:" + randomHex(4)
		require.Equal(t, int64(2), rdb.SAdd(ctx, key, "a", "b").Val())
		require.Equal(t, []string{"a", "b"}, rdb.SMembers(ctx, key).Val(), "RESP%d", proto)
		require.NoError(t, rdb.Close())
	}

	// Client certificates required.
	mtls := startTLSServer(t, ts, pki.CertFile, pki.KeyFile, pki.CAFile)
	anon := redis.NewClient(&redis.Options{Addr: mtls, TLSConfig: &tls.Config{RootCAs: pki.CAs}, MaxRetries: -1})
	defer anon.Close()
	err := anon.Ping(ctx).Err()
	require.Error(t, err, "no client certificate")
	signed := redis.NewClient(&redis.Options{Addr: mtls, TLSConfig: &tls.Config{RootCAs: pki.CAs, Certificates: []tls.Certificate{pki.ClientCert}}})
	defer signed.Close()
	require.Equal(t, "PONG", signed.Ping(ctx).Val())
	_, port, _ = net.SplitHostPort(mtls)
	out, err = exec.Command(cli, "--tls", "--cacert", pki.CAFile, "--cert", pki.ClientCertFile, "--key", pki.ClientKeyFile,
		"-h", host, "-p", port, "PING").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "PONG\n", string(out))

	// Setup mistakes are named.
	_, err = server.TLSConfig(pki.CertFile, "", "")
	require.ErrorContains(t, err, "key file")
	_, err = server.TLSConfig(pki.CertFile, pki.ClientKeyFile, "")
	require.ErrorContains(t, err, "private key does not match")
	_, err = server.TLSConfig(pki.CertFile, pki.KeyFile, pki.KeyFile)
	require.True(t, err != nil && strings.Contains(err.Error(), "no PEM certificate"), "%v", err)
}
