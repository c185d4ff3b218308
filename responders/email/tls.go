package email

import "crypto/tls"

func tlsConfig(host string, insecure bool) *tls.Config {
	return &tls.Config{ServerName: host, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12} // #nosec G402: only when the program asks, for tests
}
