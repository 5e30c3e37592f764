package testenv

import (
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
	"path/filepath"
	"testing"
	"time"
)

// PKI is a certificate authority made for one test, a server certificate
// for 127.0.0.1 and localhost and a client certificate, both signed by
// it, written as PEM files in the test's temporary directory (valid for an
// hour).
type PKI struct {
	CAFile                        string // the CA's certificate
	CertFile, KeyFile             string // the server's certificate and key
	ClientCertFile, ClientKeyFile string
	CAs                           *x509.CertPool  // the CA, for a client's RootCAs
	ClientCert                    tls.Certificate // the client certificate, for a client's Certificates
}

// NewPKI makes a PKI with crypto/x509 (ECDSA P-256 keys).
func NewPKI(tb testing.TB) *PKI {
	tb.Helper()
	must := func(err error) {
		if err != nil {
			tb.Helper()
			tb.Fatalf("test PKI: %v", err)
		}
	}
	dir := tb.TempDir()
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(dir, name)
		must(os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return f
	}
	serial := int64(0)
	issue := func(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		must(err)
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		if parent == nil { // self-signed
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		must(err)
		cert, err := x509.ParseCertificate(der)
		must(err)
		return cert, key, der
	}
	keyDER := func(k *ecdsa.PrivateKey) []byte {
		der, err := x509.MarshalECPrivateKey(k)
		must(err)
		return der
	}
	p := &PKI{CAs: x509.NewCertPool()}
	ca, caKey, caDER := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "redimo test CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	p.CAFile = write("ca.pem", "CERTIFICATE", caDER)
	p.CAs.AddCert(ca)
	_, key, der := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "redimo-server"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, caKey)
	p.CertFile, p.KeyFile = write("server.pem", "CERTIFICATE", der), write("server.key", "EC PRIVATE KEY", keyDER(key))
	_, ckey, cder := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, caKey)
	p.ClientCertFile, p.ClientKeyFile = write("client.pem", "CERTIFICATE", cder), write("client.key", "EC PRIVATE KEY", keyDER(ckey))
	var err error
	p.ClientCert, err = tls.LoadX509KeyPair(p.ClientCertFile, p.ClientKeyFile)
	must(err)
	return p
}
