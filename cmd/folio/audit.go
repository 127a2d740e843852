package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"folio/actors/auditlog"
)

const auditUsage = `usage: folio audit verify --key KEY.pub --checkpoint FILE [--checkpoint FILE…] EXPORT.jsonl

Checks an audit export (GET /v1/audit/export, its pages joined, from sequence 1;
"-" reads standard input) offline, against checkpoints (GET /v1/audit/checkpoint)
you kept, with the server's verifier key (GET /v1/audit/key, pinned): every
checkpoint's signature, every chain hash, and the Merkle root of the first
SIZE entries against each checkpoint. Prints the first bad entry and exits 1
when the export is not the log the checkpoints vouch for. No server needed.

usage: folio audit verify-receipt --key KEY.pub [--checkpoint FILE --proof FILE | --server URL] RECEIPT.json

Checks a decision's receipt offline: the receipt itself, or an action.executed
callback body, wait answer or MCP decision holding one ("-" reads standard
input). It checks that the entry bytes hash to the receipt's leaf, that the
entry records the receipt's page_version and content_hash, that the checkpoint
is signed by the key, and that the inclusion proof leads from the leaf to the
checkpoint's root. A wait answer carries its checkpoint and proof; for a
callback's receipt give them as files (GET /v1/audit/checkpoint and
GET /v1/audit/proof/inclusion?entry=N&size=SIZE), or --server URL with
--api-key (FOLIO_API_KEY) to fetch both. Lists what held and exits 1 at the
first check that fails.
`

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runAudit(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, auditUsage)
		return nil
	}
	if args[0] == "verify-receipt" {
		return runVerifyReceipt(args[1:], stdout)
	}
	if args[0] != "verify" {
		return fmt.Errorf("unknown audit command %q\n%s", args[0], auditUsage)
	}
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	keyFile := fs.String("key", "", "file holding the verifier key, name+hash+key (GET /v1/audit/key)")
	var cps multiFlag
	fs.Var(&cps, "checkpoint", "a signed checkpoint file (GET /v1/audit/checkpoint); repeat for several")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w\n%s", err, auditUsage)
	}
	if *keyFile == "" || len(cps) == 0 || fs.NArg() != 1 {
		return fmt.Errorf("audit verify needs --key, at least one --checkpoint and one export file\n%s", auditUsage)
	}
	vkey, err := os.ReadFile(*keyFile)
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	var notes [][]byte
	for _, c := range cps {
		b, err := os.ReadFile(c)
		if err != nil {
			return fmt.Errorf("--checkpoint: %w", err)
		}
		notes = append(notes, b)
	}
	var in io.Reader = os.Stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		in = f
	}
	rep, err := auditlog.VerifyExport(in, string(vkey), notes)
	if err != nil {
		return err
	}
	if !rep.Valid {
		return fmt.Errorf("audit log %s is NOT the one the checkpoints vouch for: first bad entry %d: %s", rep.Origin, rep.FirstBad, rep.Reason)
	}
	fmt.Fprintf(stdout, "ok: %s: %d entries, chain intact, tree matches the signed checkpoints of size %s\n",
		rep.Origin, rep.Entries, strings.Trim(fmt.Sprint(rep.Checked), "[]"))
	return nil
}
