package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"folio/actors/auditlog"
	"folio/actors/page"
)

// runVerifyReceipt is `folio audit verify-receipt`: auditlog.VerifyReceipt over
// files, or over a checkpoint and proof fetched from --server.
func runVerifyReceipt(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("audit verify-receipt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	keyFile := fs.String("key", "", "file holding the verifier key, name+hash+key (GET /v1/audit/key, pinned)")
	cpFile := fs.String("checkpoint", "", "a signed checkpoint file (GET /v1/audit/checkpoint) whose tree includes the entry")
	proofFile := fs.String("proof", "", "the entry's inclusion proof in that checkpoint's tree (GET /v1/audit/proof/inclusion?entry=N&size=SIZE)")
	server := fs.String("server", "", "fetch the checkpoint and the proof from this Folio server (its base URL)")
	apiKey := fs.String("api-key", env("FOLIO_API_KEY", ""), "API key of the receipt's tenant, for --server (FOLIO_API_KEY)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w\n%s", err, auditUsage)
	}
	if *keyFile == "" || fs.NArg() != 1 {
		return fmt.Errorf("audit verify-receipt needs --key and one receipt file\n%s", auditUsage)
	}
	if (*cpFile == "") != (*proofFile == "") {
		return errors.New("audit verify-receipt: give --checkpoint and --proof together (the proof must be in that checkpoint's tree)")
	}
	vkey, err := os.ReadFile(*keyFile)
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	raw, err := readArg(fs.Arg(0))
	if err != nil {
		return err
	}
	r, err := findReceipt(raw)
	if err != nil {
		return err
	}
	var cp []byte
	var proof *auditlog.Inclusion
	switch {
	case *cpFile != "":
		if cp, err = os.ReadFile(*cpFile); err != nil {
			return fmt.Errorf("--checkpoint: %w", err)
		}
		b, err := os.ReadFile(*proofFile)
		if err != nil {
			return fmt.Errorf("--proof: %w", err)
		}
		proof = &auditlog.Inclusion{}
		if err := json.Unmarshal(b, proof); err != nil {
			return fmt.Errorf("--proof: not an inclusion proof (GET /v1/audit/proof/inclusion): %w", err)
		}
	case *server != "":
		if cp, proof, err = fetchProof(*server, *apiKey, r.Entry); err != nil {
			return err
		}
	}
	checked, err := auditlog.VerifyReceipt(r, string(vkey), cp, proof)
	for _, c := range checked {
		fmt.Fprintf(stdout, "ok: %s\n", c)
	}
	if err != nil {
		return fmt.Errorf("receipt of entry %d NOT verified: %w", r.Entry, err)
	}
	fmt.Fprintf(stdout, "verified: entry %d is in the audit tree the key signed\n", r.Entry)
	return nil
}

func readArg(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	}
	return os.ReadFile(name)
}

// findReceipt reads a receipt from the receipt itself, or from a body holding one
// as "receipt" (an MCP decision) or "data.receipt" (a callback, a wait answer).
func findReceipt(raw []byte) (page.Receipt, error) {
	var holder struct {
		Receipt json.RawMessage `json:"receipt"`
		Data    struct {
			Receipt json.RawMessage `json:"receipt"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &holder); err != nil {
		return page.Receipt{}, fmt.Errorf("receipt: not JSON: %w", err)
	}
	switch {
	case len(holder.Data.Receipt) > 0 && string(holder.Data.Receipt) != "null":
		raw = holder.Data.Receipt
	case len(holder.Receipt) > 0 && string(holder.Receipt) != "null":
		raw = holder.Receipt
	}
	var r page.Receipt
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("receipt: %w", err)
	}
	if r.Entry == 0 {
		return r, errors.New("receipt: no receipt found (want an object with entry, leaf_hash and entry_base64, or a body holding one as receipt or data.receipt)")
	}
	return r, nil
}

// fetchProof fetches the tenant's latest checkpoint and the entry's inclusion
// proof in its tree. Nothing fetched is trusted: VerifyReceipt checks both.
func fetchProof(server, apiKey string, entry int64) ([]byte, *auditlog.Inclusion, error) {
	if apiKey == "" {
		return nil, nil, errors.New("--server needs --api-key (or FOLIO_API_KEY): checkpoints and proofs are the tenant's")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(server, "/")+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+apiKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer func() { _ = res.Body.Close() }()
		b, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %s: %s", path, res.Status, bytes.TrimSpace(b))
		}
		return b, err
	}
	cp, err := get("/v1/audit/checkpoint")
	if err != nil {
		return nil, nil, err
	}
	text, _, _ := strings.Cut(string(cp), "\n\n")
	_, size, _, err := auditlog.ParseCheckpoint(text + "\n")
	if err != nil {
		return nil, nil, err
	}
	if size < entry {
		return nil, nil, fmt.Errorf("the server's latest checkpoint has %d entries, not yet entry %d: try again in a moment", size, entry)
	}
	b, err := get(page.ProofPath(entry, size))
	if err != nil {
		return nil, nil, err
	}
	var p auditlog.Inclusion
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, nil, fmt.Errorf("inclusion proof: %w", err)
	}
	return cp, &p, nil
}
