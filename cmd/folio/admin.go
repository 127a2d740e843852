package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/httpapi"
)

const adminUsage = `usage: folio admin [--data DIR | --server URL --admin-token TOKEN] [--plan SPECS] COMMAND [ARGS]

Without --server the command works on the data directory directly (stop the server
first: bbolt allows one process). With --server it calls a running server's
/v1/admin endpoints (the server must have been started with --admin-token).

commands:
  tenants [--limit N] [--offset N] [--json]   list tenants
  tenant ID                                   show one tenant (JSON)
  set-plan ID PLAN [--rpm N] [--pages N]      set the plan; --rpm/--pages set the tenant's own
                                              requests per minute / pages per month (0 = unlimited;
                                              omitted = the plan's)
  create-key ID [--name NAME] [--test]        create an API key for the tenant (printed once)
  export-audit ID [--out FILE]                the tenant's audit log as JSON lines
`

// runAdmin is `folio admin`.
func runAdmin(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	data := fs.String("data", env("FOLIO_DATA", "./data"), "data directory of a stopped server (FOLIO_DATA)")
	server := fs.String("server", env("FOLIO_SERVER", ""), "base URL of a running server (FOLIO_SERVER)")
	token := fs.String("admin-token", env("FOLIO_ADMIN_TOKEN", ""), "the server's admin token (FOLIO_ADMIN_TOKEN)")
	planSpecs := fs.String("plan", env("FOLIO_PLANS", ""), "plan overrides as given to the server (FOLIO_PLANS)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w\n%s", err, adminUsage)
	}
	rest := fs.Args()
	if len(rest) == 0 || rest[0] == "help" {
		fmt.Fprint(stdout, adminUsage)
		return nil
	}
	var b adminBackend
	if *server != "" {
		if *token == "" {
			return errors.New("--server needs --admin-token (or FOLIO_ADMIN_TOKEN)")
		}
		b = &remoteAdmin{base: strings.TrimRight(*server, "/"), token: *token, client: &http.Client{Timeout: 60 * time.Second}}
	} else {
		overrides, err := tenant.ParsePlanSpecs(*planSpecs)
		if err != nil {
			return fmt.Errorf("--plan: %w", err)
		}
		lb, err := openLocalAdmin(*data, tenant.NewPlanSet(overrides))
		if err != nil {
			return err
		}
		b = lb
	}
	err := adminCommand(b, rest[0], rest[1:], stdout)
	if cerr := b.close(); err == nil {
		err = cerr
	}
	return err
}

func adminCommand(b adminBackend, cmd string, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	switch cmd {
	case "tenants":
		limit := fs.Int("limit", 100, "")
		offset := fs.Int("offset", 0, "")
		asJSON := fs.Bool("json", false, "")
		if _, err := parseWith(fs, args, 0); err != nil {
			return err
		}
		list, total, err := b.list(*offset, *limit)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			for _, t := range list {
				if err := enc.Encode(t); err != nil {
					return err
				}
			}
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TENANT\tNAME\tPLAN\tPAGES THIS MONTH\tPAGES LIMIT\tREQ/MIN\tCREATED")
		for _, t := range list {
			usage, _ := t["usage"].(map[string]any)
			limits, _ := t["limits"].(map[string]any)
			fmt.Fprintf(tw, "%v\t%v\t%v\t%v\t%v\t%v\t%v\n", t["tenant_id"], t["name"], t["plan"], usage["pages_this_month"],
				orUnlimited(usage["pages_limit"]), orUnlimited(limits["requests_per_minute"]), t["created_at"])
		}
		fmt.Fprintf(tw, "(%d of %d)\n", len(list), total)
		return tw.Flush()
	case "tenant":
		pos, err := parseWith(fs, args, 1)
		if err != nil {
			return err
		}
		t, err := b.show(pos[0])
		if err != nil {
			return err
		}
		return printJSON(stdout, t)
	case "set-plan":
		rpm := fs.String("rpm", "", "")
		pages := fs.String("pages", "", "")
		pos, err := parseWith(fs, args, 2)
		if err != nil {
			return err
		}
		m := &tenant.SetPlan{Plan: pos[1]}
		if m.RequestsPerMinute, err = optionalInt("--rpm", *rpm); err != nil {
			return err
		}
		if m.PagesPerMonth, err = optionalInt("--pages", *pages); err != nil {
			return err
		}
		t, err := b.setPlan(pos[0], m)
		if err != nil {
			return err
		}
		return printJSON(stdout, t)
	case "create-key":
		name := fs.String("name", "admin", "")
		test := fs.Bool("test", false, "")
		pos, err := parseWith(fs, args, 1)
		if err != nil {
			return err
		}
		k, err := b.createKey(pos[0], *name, *test)
		if err != nil {
			return err
		}
		return printJSON(stdout, k)
	case "export-audit":
		out := fs.String("out", "", "")
		pos, err := parseWith(fs, args, 1)
		if err != nil {
			return err
		}
		w := stdout
		var file *os.File
		if *out != "" {
			if file, err = os.Create(*out); err != nil {
				return err
			}
			w = file
		}
		n, err := b.exportAudit(pos[0], w)
		if file != nil {
			// The export is written when the file closes without error.
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return err
		}
		if *out != "" {
			fmt.Fprintf(stdout, "%d audit records written to %s\n", n, *out)
		}
		return nil
	}
	return fmt.Errorf("unknown admin command %q\n%s", cmd, adminUsage)
}

// parseWith parses flags given before, between or after exactly n positional
// arguments, and returns the positionals.
func parseWith(fs *flag.FlagSet, args []string, n int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%s: %w", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) != n {
		return nil, fmt.Errorf("%s takes %d argument(s), got %d\n%s", fs.Name(), n, len(pos), adminUsage)
	}
	return pos, nil
}

func optionalInt(name, v string) (*int, error) {
	if v == "" {
		return nil, nil
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n < 0 {
		return nil, fmt.Errorf("%s must be a whole number >= 0 (0 = unlimited)", name)
	}
	return &n, nil
}

func orUnlimited(v any) any {
	if v == nil {
		return "unlimited"
	}
	return v
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// adminBackend is where the commands act: a data directory or a running server.
type adminBackend interface {
	list(offset, limit int) ([]map[string]any, int, error)
	show(id string) (map[string]any, error)
	setPlan(id string, m *tenant.SetPlan) (map[string]any, error)
	createKey(id, name string, test bool) (map[string]any, error)
	exportAudit(id string, w io.Writer) (int, error)
	close() error
}

// localAdmin works on a stopped server's store with the same domain functions the
// server's actors use.
type localAdmin struct {
	store *persistence.Store
	plans tenant.PlanSet
}

func openLocalAdmin(dir string, plans tenant.PlanSet) (*localAdmin, error) {
	if _, err := os.Stat(filepath.Join(dir, "folio.db")); err != nil {
		return nil, fmt.Errorf("no Folio data in %s (use --data DIR, or --server URL with --admin-token)", dir)
	}
	store, err := persistence.Open(dir, persistence.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w: is a server running on %s? stop it, or use --server URL with --admin-token", err, dir)
	}
	return &localAdmin{store: store, plans: plans}, nil
}

func (l *localAdmin) close() error { return l.store.Close() }

func (l *localAdmin) list(offset, limit int) ([]map[string]any, int, error) {
	ts, total, err := tenant.ListTenants(l.store, offset, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]map[string]any, 0, len(ts))
	for _, t := range ts {
		v, err := l.show(t.ID)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, nil
}

func (l *localAdmin) show(id string) (map[string]any, error) {
	sum, err := tenant.Summarize(l.store, l.plans, id, time.Now())
	if err != nil {
		return nil, err
	}
	return jsonRoundTrip(httpapi.AdminTenantView(sum))
}

func (l *localAdmin) setPlan(id string, m *tenant.SetPlan) (map[string]any, error) {
	if err := m.Validate(l.plans); err != nil {
		return nil, err
	}
	if _, err := tenant.ApplyPlan(l.store, id, m, time.Now()); err != nil {
		return nil, err
	}
	return l.show(id)
}

func (l *localAdmin) createKey(id, name string, test bool) (map[string]any, error) {
	k, secret, err := tenant.CreateKeyIn(l.store, id, name, test, time.Now())
	if err != nil {
		return nil, err
	}
	return jsonRoundTrip(httpapi.AdminKeyView(k, secret))
}

func (l *localAdmin) exportAudit(id string, w io.Writer) (int, error) {
	if ok, err := tenant.Exists(l.store, id); err != nil || !ok {
		if err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("tenant %s not found", id)
	}
	return tenant.ExportAudit(l.store, id, w)
}

// jsonRoundTrip gives local results the same shape as decoded remote ones.
func jsonRoundTrip(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// remoteAdmin calls a running server's /v1/admin endpoints.
type remoteAdmin struct {
	base, token string
	client      *http.Client
}

func (r *remoteAdmin) close() error { return nil }

func (r *remoteAdmin) do(method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 300 {
		defer res.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
		var env struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(raw, &env) == nil && env.Error.Code != "" {
			return nil, fmt.Errorf("%s %s: %d %s: %s", method, path, res.StatusCode, env.Error.Code, env.Error.Message)
		}
		return nil, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(raw))
	}
	return res, nil
}

func (r *remoteAdmin) object(method, path string, body any) (map[string]any, error) {
	res, err := r.do(method, path, body)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var m map[string]any
	return m, json.NewDecoder(res.Body).Decode(&m)
}

func (r *remoteAdmin) list(offset, limit int) ([]map[string]any, int, error) {
	var out struct {
		Tenants []map[string]any `json:"tenants"`
		Total   int              `json:"total"`
	}
	res, err := r.do("GET", fmt.Sprintf("/v1/admin/tenants?offset=%d&limit=%d", offset, limit), nil)
	if err != nil {
		return nil, 0, err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return nil, 0, err
	}
	return out.Tenants, out.Total, nil
}

func (r *remoteAdmin) show(id string) (map[string]any, error) {
	return r.object("GET", "/v1/admin/tenants/"+url.PathEscape(id), nil)
}

func (r *remoteAdmin) setPlan(id string, m *tenant.SetPlan) (map[string]any, error) {
	return r.object("PUT", "/v1/admin/tenants/"+url.PathEscape(id)+"/plan",
		map[string]any{"plan": m.Plan, "requests_per_minute": m.RequestsPerMinute, "pages_per_month": m.PagesPerMonth})
}

func (r *remoteAdmin) createKey(id, name string, test bool) (map[string]any, error) {
	mode := "live"
	if test {
		mode = "test"
	}
	return r.object("POST", "/v1/admin/tenants/"+url.PathEscape(id)+"/api-keys", map[string]any{"name": name, "mode": mode})
}

func (r *remoteAdmin) exportAudit(id string, w io.Writer) (int, error) {
	res, err := r.do("GET", "/v1/admin/tenants/"+url.PathEscape(id)+"/audit", nil)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	cw := &lineCounter{w: w}
	_, err = io.Copy(cw, res.Body)
	return cw.n, err
}

type lineCounter struct {
	w io.Writer
	n int
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, []byte{'\n'})
	return c.w.Write(p)
}
