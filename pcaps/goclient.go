// SPDX-License-Identifier: GPL-2.0-or-later
// goclient.go: a minimal Go crypto/tls client for pcaps/make-captures.sh.
//
//	go run pcaps/goclient.go ADDR MAXVERSION
//
// Connects to ADDR (host:port) with server name "localhost", offers versions
// up to MAXVERSION (1.2 or 1.3), completes the handshake without checking the
// certificate (a throwaway self-signed one), prints the version and closes.
package main

import (
	"crypto/tls"
	"fmt"
	"os"
)

func main() {
	max := map[string]uint16{"1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13}[os.Args[2]]
	if max == 0 {
		fmt.Fprintln(os.Stderr, "MAXVERSION must be 1.2 or 1.3")
		os.Exit(2)
	}
	conn, err := tls.Dial("tcp", os.Args[1], &tls.Config{
		ServerName:         "localhost",
		MaxVersion:         max,
		InsecureSkipVerify: true, // a throwaway self-signed certificate
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("version 0x%04x\n", conn.ConnectionState().Version)
	conn.Close()
}
