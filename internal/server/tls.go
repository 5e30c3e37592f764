package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSConfig returns the TLS configuration that redis-server builds from
// tls-cert-file, tls-key-file and tls-ca-cert-file: the server presents
// the certificate (chain) of certFile with the private key of keyFile;
// when caFile is not empty, every client must present a certificate
// signed by one of its CAs (redis-server's default tls-auth-clients yes),
// and without it clients are not asked for one. TLS 1.2 is the minimum,
// as redis-server's default tls-protocols. Serve a listener wrapped with
// tls.NewListener(ln, cfg).
func TLSConfig(certFile, keyFile, caFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" {
		return nil, errors.New("TLS needs both a certificate file and a key file")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s / key %s: %w", certFile, keyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("TLS CA certificates: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA certificates: no PEM certificate in %s", caFile)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}
