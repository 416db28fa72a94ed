// Package sctest makes service account keys for tests, as Google's
// console writes them (a JSON file with the account's email, its PKCS #8
// private key in PEM and the token_uri to ask for tokens): the key pair is
// made by the test process, so no private key is ever committed.
package sctest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"sync"
	"testing"
)

// Account is the client_email of the keys made here.
const Account = "sitemapd-test@project.iam.gserviceaccount.test"

// KeyID is their private_key_id, which the JWT header names (kid).
const KeyID = "kid-1"

var (
	once sync.Once
	priv *rsa.PrivateKey
	err  error
)

// pair is the process's key pair, made once: 2048-bit RSA, as Google's.
func pair(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	once.Do(func() { priv, err = rsa.GenerateKey(rand.Reader, 2048) })
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// Key returns a key file's bytes whose token_uri is tokenURI, and the
// public half of its key, with which a fake token endpoint verifies the
// JWTs it signs.
func Key(t testing.TB, tokenURI string) ([]byte, *rsa.PublicKey) {
	t.Helper()
	k := pair(t)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "project", "private_key_id": KeyID,
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": Account, "client_id": "1", "token_uri": tokenURI,
		"auth_uri": "https://accounts.google.test/o/oauth2/auth",
	})
	if err != nil {
		t.Fatal(err)
	}
	return data, &k.PublicKey
}

// WriteKey writes a key file at path with the mode given (umask aside),
// and returns the public half of its key.
func WriteKey(t testing.TB, path, tokenURI string, mode os.FileMode) *rsa.PublicKey {
	t.Helper()
	data, pub := Key(t, tokenURI)
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return pub
}
