package web_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"folio/actors/auditlog"
)

// TestDashAuditShowsTheCheckpointAndDownloadsTheExport: the owner's audit screen
// shows the workspace's latest checkpoint as the API signs it (size, root, key)
// and downloads the whole export, which verifies offline against that checkpoint;
// another workspace's log is not found, and without a session there is none.
// Checked with axe at 1280 and 390 px, light and dark.
func TestDashAuditShowsTheCheckpointAndDownloadsTheExport(t *testing.T) {
	o := newOwner(t)
	ids := o.publishN(t, 2, "Audited page", nil)
	o.e.Must(200, "POST", "/v1/pages/"+ids[0]+"/actions/approve", o.key, map[string]any{"actor": map[string]any{"identity": "ann@example.com"}})
	note := o.e.Do("GET", "/v1/audit/checkpoint", o.key, nil).Body
	vkey := strings.TrimSpace(string(o.e.Do("GET", "/v1/audit/key", "", nil).Body))
	_, size, root, err := auditlog.OpenCheckpoint(note, vkey)
	if err != nil {
		t.Fatal(err)
	}

	tb := o.tb
	tb.do(chromedp.Navigate(o.e.Srv.URL + "/audit"))
	tb.until("the audit screen", `!!document.querySelector("#a-size")`)
	if got := tb.text("#a-size"); got != "6" || size != 6 {
		t.Errorf("the screen shows %q entries, the API's checkpoint %d (two pages published, one decided and completed: 6)", got, size)
	}
	if got := tb.text("#a-root"); got != base64.StdEncoding.EncodeToString(root[:]) {
		t.Errorf("the root reads %q", got)
	}
	if got := tb.text("#a-key"); got != vkey {
		t.Errorf("the key reads %q, GET /v1/audit/key %q", got, vkey)
	}
	if got := tb.text("#a-signed"); !strings.Contains(got, "UTC") {
		t.Errorf("when signed reads %q", got)
	}
	if got := tb.text(`.dash-nav a[aria-current="page"]`); got != "Audit log" {
		t.Errorf("the current section is %q", got)
	}

	// The download, with the session (as the link is followed), is the whole
	// export, and it verifies offline against the checkpoint the API signed.
	got := eval[[]string](tb, `(function(){var x=new XMLHttpRequest();x.open("GET",document.querySelector("#a-export").getAttribute("href"),false);x.send();
		return [String(x.status), x.getResponseHeader("Content-Type"), x.getResponseHeader("Content-Disposition"), x.responseText]})()`)
	if got[0] != "200" || got[1] != "application/x-ndjson" || !strings.Contains(got[2], "attachment") {
		t.Fatalf("the download: %v", got[:3])
	}
	rep, err := auditlog.VerifyExport(strings.NewReader(got[3]), vkey, [][]byte{note})
	if err != nil || !rep.Valid || rep.Entries != 6 {
		t.Fatalf("the downloaded export against the checkpoint: %+v %v\n%s", rep, err, got[3])
	}
	if api := o.e.Do("GET", "/v1/audit/export", o.key, nil).Body; string(api) != got[3] {
		t.Errorf("the download differs from GET /v1/audit/export:\n%s\n%s", got[3], api)
	}
	// Another workspace: the person is not its member, so it does not exist for them.
	other := o.e.Must(201, "POST", "/v1/auth/agent/register", "", map[string]any{"name": "Someone else"})["tenantId"].(string)
	if st := eval[float64](tb, `(function(){var x=new XMLHttpRequest();x.open("GET","/audit/export?w=`+other+`",false);x.send();return x.status})()`); st != 404 {
		t.Errorf("another workspace's export: %v, want 404", st)
	}
	// Without a session: sent to sign in (the client follows the 303), no entry.
	if res := o.e.Do("GET", "/audit/export", "", nil); strings.Contains(string(res.Body), "chain_hash") || !strings.Contains(string(res.Body), "Sign in") {
		t.Errorf("the export without a session: %d %s", res.Status, res.Body)
	}

	for _, w := range []int64{1280, 390} {
		tb.width(w)
		tb.noSeriousViolations("the audit screen")
		tb.noSideways("the audit screen")
		for _, dark := range []bool{false, true} {
			tb.dark(dark)
			tb.settle()
			name := "dash-audit-" + map[int64]string{1280: "1280", 390: "390"}[w]
			if dark {
				name += "-dark"
			}
			tb.shot(name)
		}
		tb.dark(false)
	}
	tb.width(1000)
}
