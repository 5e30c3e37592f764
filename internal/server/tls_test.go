package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redimo-go/redimo/internal/server"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// testPKI is a self-signed CA, a server certificate for 127.0.0.1 and a
// client certificate, both signed by it, written as PEM files.
type testPKI struct {
	dir                           string
	caFile, certFile, keyFile     string
	clientCertFile, clientKeyFile string
	caPool                        *x509.CertPool
	clientCert                    tls.Certificate
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir()}
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(p.dir, name)
		require.NoError(t, os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return f
	}
	serial := int64(1)
	issue := func(tmpl *x509.Certificate, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		require.NoError(t, err)
		cert, err := x509.ParseCertificate(der)
		require.NoError(t, err)
		return cert, key, der
	}
	keyDER := func(k *ecdsa.PrivateKey) []byte {
		der, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		return der
	}
	ca, caKey, caDER := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "redimo test CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	p.caFile = write("ca.pem", "CERTIFICATE", caDER)
	_, key, der := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "redimo-server"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, caKey)
	p.certFile, p.keyFile = write("server.pem", "CERTIFICATE", der), write("server.key", "EC PRIVATE KEY", keyDER(key))
	_, ckey, cder := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, caKey)
	p.clientCertFile, p.clientKeyFile = write("client.pem", "CERTIFICATE", cder), write("client.key", "EC PRIVATE KEY", keyDER(ckey))
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(ca)
	var err error
	p.clientCert, err = tls.LoadX509KeyPair(p.clientCertFile, p.clientKeyFile)
	require.NoError(t, err)
	return p
}

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
	pki := newTestPKI(t)
	ts := startServer(t, nil, server.Config{})
	addr := startTLSServer(t, ts, pki.certFile, pki.keyFile, "")
	host, port, _ := net.SplitHostPort(addr)
	for _, trust := range [][]string{{"--cacert", pki.caFile}, {"--insecure"}} {
		out, err := exec.Command(cli, append([]string{"--tls", "-h", host, "-p", port}, append(trust, "PING")...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, "PONG\n", string(out), "redis-cli --tls %s", trust[0])
	}
	out, _ := exec.Command(cli, "-h", host, "-p", port, "PING").CombinedOutput()
	require.NotContains(t, string(out), "PONG", "plaintext on the TLS port")

	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		rdb := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, TLSConfig: &tls.Config{RootCAs: pki.caPool}})
		key := "tls:" + randomHex(4)
		require.Equal(t, int64(2), rdb.SAdd(ctx, key, "a", "b").Val())
		require.Equal(t, []string{"a", "b"}, rdb.SMembers(ctx, key).Val(), "RESP%d", proto)
		require.NoError(t, rdb.Close())
	}

	// Client certificates required.
	mtls := startTLSServer(t, ts, pki.certFile, pki.keyFile, pki.caFile)
	anon := redis.NewClient(&redis.Options{Addr: mtls, TLSConfig: &tls.Config{RootCAs: pki.caPool}, MaxRetries: -1})
	defer anon.Close()
	err := anon.Ping(ctx).Err()
	require.Error(t, err, "no client certificate")
	signed := redis.NewClient(&redis.Options{Addr: mtls, TLSConfig: &tls.Config{RootCAs: pki.caPool, Certificates: []tls.Certificate{pki.clientCert}}})
	defer signed.Close()
	require.Equal(t, "PONG", signed.Ping(ctx).Val())
	_, port, _ = net.SplitHostPort(mtls)
	out, err = exec.Command(cli, "--tls", "--cacert", pki.caFile, "--cert", pki.clientCertFile, "--key", pki.clientKeyFile,
		"-h", host, "-p", port, "PING").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "PONG\n", string(out))

	// Setup mistakes are named.
	_, err = server.TLSConfig(pki.certFile, "", "")
	require.ErrorContains(t, err, "key file")
	_, err = server.TLSConfig(pki.certFile, pki.clientKeyFile, "")
	require.ErrorContains(t, err, "private key does not match")
	_, err = server.TLSConfig(pki.certFile, pki.keyFile, pki.keyFile)
	require.True(t, err != nil && strings.Contains(err.Error(), "no PEM certificate"), "%v", err)
}
