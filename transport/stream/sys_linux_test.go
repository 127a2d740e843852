//go:build linux

package stream

import (
	"bytes"
	"net"
	"testing"
)

// TestWriteNonblocking: one frame, several frames (with an empty one among them)
// and a full socket buffer, through the raw write(2)/writev(2) the writer pool uses.
func TestWriteNonblocking(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() { c, _ := ln.Accept(); accepted <- c }()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := (<-accepted).(*net.TCPConn)
	defer server.Close()
	raw, err := server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}

	read := func(n int) []byte {
		buf := make([]byte, n)
		got := 0
		for got < n {
			m, err := client.Read(buf[got:])
			if err != nil {
				t.Fatalf("read after %d of %d bytes: %v", got, n, err)
			}
			got += m
		}
		return buf
	}

	if n, err := writeNonblocking(raw, [][]byte{[]byte("one frame\n")}); n != 10 || err != nil {
		t.Fatalf("one buffer: %d, %v", n, err)
	}
	if got := read(10); string(got) != "one frame\n" {
		t.Fatalf("read %q", got)
	}
	bufs := [][]byte{[]byte("a"), nil, []byte("bc"), []byte("def")}
	if n, err := writeNonblocking(raw, bufs); n != 6 || err != nil {
		t.Fatalf("several buffers: %d, %v", n, err)
	}
	if got := read(6); string(got) != "abcdef" {
		t.Fatalf("read %q", got)
	}

	// Nobody reads: the socket takes what fits, then reports 0 without waiting.
	big := bytes.Repeat([]byte("x"), 1<<20)
	total, zero := 0, false
	for i := 0; i < 256 && !zero; i++ {
		n, err := writeNonblocking(raw, [][]byte{big})
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		total += n
		zero = n == 0
	}
	if !zero || total == 0 {
		t.Fatalf("a full socket buffer never reported 0 bytes taken (took %d bytes)", total)
	}
}
