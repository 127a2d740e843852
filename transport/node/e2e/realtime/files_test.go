package realtime_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"folio/actors/page"
	"folio/persistence"
	"folio/transport/node"
	"folio/transport/node/nodetest"
)

// presign asks for an upload address.
func presign(t *testing.T, e *nodetest.Env, key, id string, body map[string]any) map[string]any {
	t.Helper()
	return e.Must(200, "POST", "/v1/pages/"+id+"/files/presign", key, body)
}

// upload runs the three steps and returns the file id.
func upload(t *testing.T, e *nodetest.Env, key, id, name string, data []byte) string {
	t.Helper()
	p := presign(t, e, key, id, map[string]any{"filename": name, "mime_type": "text/plain", "size_bytes": len(data), "uploaded_by": "bot"})
	e.Must(200, "PUT", p["uploadUrl"].(string), "", data)
	f := e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{
		"storage_key": p["storageKey"], "filename": name, "mime_type": "text/plain", "uploaded_by": "bot", "upload_type": "agent"})
	return f["id"].(string)
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, e *nodetest.Env, c *http.Client, path string) (*http.Response, []byte) {
	t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = e.Srv.URL + path
	}
	res, err := c.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// TestFileUploadDownloadDelete: presign names a sanitised storage key under the
// page and a signed upload address ending with it; the bytes go up with PUT, the
// record comes with complete (201, file.uploaded); anyone may list the files of a
// public page; download redirects to a signed, expiring address that serves the
// bytes as an attachment; delete removes the record and the bytes (file.deleted).
func TestFileUploadDownloadDelete(t *testing.T) {
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk)
	key, tenantID := e.Register("uploader")
	id := e.Publish(key, nil)
	events := openSSE(t, e, "/v1/pages/"+id+"/events", "", "")
	events.expect("connected")

	data := []byte("quarterly numbers\n")
	p := presign(t, e, key, id, map[string]any{"filename": "report Q3.txt", "mime_type": "text/plain", "size_bytes": len(data), "uploaded_by": "bot", "upload_type": "agent"})
	sk := p["storageKey"].(string)
	if !strings.HasPrefix(sk, tenantID+"/"+id+"/") || !strings.HasSuffix(sk, "_report_Q3.txt") {
		t.Fatalf("storage key %q", sk)
	}
	up := p["uploadUrl"].(string)
	if !strings.HasPrefix(up, "/v1/storage/upload/") || !strings.HasSuffix(up, url.PathEscape(sk)) {
		t.Fatalf("upload url %q for key %q", up, sk)
	}
	if p["filename"] != "report_Q3.txt" || p["mimeType"] != "text/plain" || p["uploadedBy"] != "bot" || p["uploadType"] != "agent" {
		t.Fatalf("presign: %v", p)
	}
	// Nothing to complete before the bytes are there.
	if r := e.Do("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": sk}); r.Status != 400 || r.ErrDetails(t)["field"] != "storage_key" {
		t.Fatalf("complete before upload: %d %s", r.Status, r.Body)
	}
	e.Must(200, "PUT", up, "", data)
	if r := e.Do("PUT", up, "", data); r.Status != 409 {
		t.Fatalf("second PUT: %d %s", r.Status, r.Body)
	}
	f := e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": sk, "filename": "report Q3.txt", "mime_type": "text/plain", "uploaded_by": "bot", "upload_type": "agent"})
	if f["pageId"] != id || f["sizeBytes"] != float64(len(data)) || f["storageKey"] != sk || f["filename"] != "report_Q3.txt" || f["uploadType"] != "agent" || f["createdAt"] == nil {
		t.Fatalf("file record: %v", f)
	}
	fid := f["id"].(string)
	if m, _ := events.expect("file.uploaded"); m.data()["fileId"] != fid || m.data()["filename"] != "report_Q3.txt" {
		t.Fatalf("file.uploaded: %s", m.Raw)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": sk}); r.Status != 409 {
		t.Fatalf("second complete: %d %s", r.Status, r.Body)
	}

	list := e.Must(200, "GET", "/v1/pages/"+id+"/files", "", nil)["files"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != fid || list[0].(map[string]any)["sizeBytes"] != float64(len(data)) {
		t.Fatalf("list: %v", list)
	}

	res, _ := get(t, e, noRedirect, "/v1/pages/"+id+"/files/"+fid+"/download")
	if res.StatusCode != 302 {
		t.Fatalf("download: %d", res.StatusCode)
	}
	loc := res.Header.Get("Location")
	if !strings.HasPrefix(loc, "/v1/storage/download/") {
		t.Fatalf("location %q", loc)
	}
	res, body := get(t, e, noRedirect, loc)
	if res.StatusCode != 200 || !bytes.Equal(body, data) {
		t.Fatalf("blob: %d %q", res.StatusCode, body)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, "report_Q3.txt") {
		t.Fatalf("Content-Disposition %q", cd)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("headers: %v", res.Header)
	}
	// Following the redirect gets the bytes too.
	if res, body := get(t, e, http.DefaultClient, "/v1/pages/"+id+"/files/"+fid+"/download"); res.StatusCode != 200 || !bytes.Equal(body, data) {
		t.Fatalf("followed download: %d %q", res.StatusCode, body)
	}
	// The signed address expires.
	clk.Advance(10 * time.Minute)
	if res, _ := get(t, e, noRedirect, loc); res.StatusCode != 403 {
		t.Fatalf("expired download address: %d", res.StatusCode)
	}
	res, _ = get(t, e, noRedirect, "/v1/pages/"+id+"/files/"+fid+"/download")
	loc = res.Header.Get("Location")

	// Another page's file id, an unknown id: 404.
	other := e.Publish(key, nil)
	for _, path := range []string{"/v1/pages/" + other + "/files/" + fid + "/download", "/v1/pages/" + id + "/files/file_nope/download"} {
		if r := e.Do("GET", path, "", nil); r.Status != 404 || r.ErrCode(t) != "NOT_FOUND" {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}
	// Delete: owner's key only; then record, bytes and addresses are gone.
	if r := e.Do("DELETE", "/v1/pages/"+id+"/files/"+fid, "", nil); r.Status != 401 {
		t.Fatalf("anonymous delete: %d", r.Status)
	}
	stranger, _ := e.Register("stranger")
	if r := e.Do("DELETE", "/v1/pages/"+id+"/files/"+fid, stranger, nil); r.Status != 404 {
		t.Fatalf("another tenant's delete: %d", r.Status)
	}
	e.Must(204, "DELETE", "/v1/pages/"+id+"/files/"+fid, key, nil)
	if m, _ := events.expect("file.deleted"); m.data()["fileId"] != fid {
		t.Fatalf("file.deleted: %s", m.Raw)
	}
	if r := e.Do("DELETE", "/v1/pages/"+id+"/files/"+fid, key, nil); r.Status != 404 {
		t.Fatalf("second delete: %d", r.Status)
	}
	if res, _ := get(t, e, noRedirect, loc); res.StatusCode != 404 {
		t.Fatalf("download address of a deleted file: %d", res.StatusCode)
	}
	if n := len(e.Must(200, "GET", "/v1/pages/"+id+"/files", "", nil)["files"].([]any)); n != 0 {
		t.Fatalf("files after delete: %d", n)
	}
}

// TestFileNamesCannotEscapeThePage: path traversal, absolute paths, control
// characters and encoded separators in filenames are sanitised into the last part
// of the page's storage key; a storage key of another page, or one with traversal,
// is refused at complete.
func TestFileNamesCannotEscapeThePage(t *testing.T) {
	e := nodetest.New(t)
	key, tenantID := e.Register("uploader")
	id := e.Publish(key, nil)
	other := e.Publish(key, nil)
	for name, want := range map[string]string{
		"../../etc/passwd":       "passwd",
		`..\..\windows\system32`: "system32",
		"/abs/path/x.pdf":        "x.pdf",
		"..":                     "file",
		".hidden":                "hidden",
		"a\x00b\nc\r\x1b.txt":    "abc.txt",
		"we%2F..%2Fird.txt":      "we_2F__2Fird.txt",
		`quote".txt`:             "quote_.txt",
		"naïve résumé.pdf":       "naïve_résumé.pdf",
	} {
		p := presign(t, e, key, id, map[string]any{"filename": name, "size_bytes": 1})
		sk := p["storageKey"].(string)
		prefix := tenantID + "/" + id + "/"
		rest := strings.TrimPrefix(sk, prefix)
		if !strings.HasPrefix(sk, prefix) || strings.ContainsAny(rest, "/\\\x00\n") || strings.Contains(rest, "..") {
			t.Errorf("filename %q -> key %q", name, sk)
		}
		if p["filename"] != want {
			t.Errorf("filename %q -> %q, want %q", name, p["filename"], want)
		}
	}
	// complete refuses keys that are not this page's.
	p := presign(t, e, key, other, map[string]any{"filename": "x.txt", "size_bytes": 1})
	e.Must(200, "PUT", p["uploadUrl"].(string), "", "x")
	for _, sk := range []any{
		p["storageKey"], // another page's
		tenantID + "/" + id + "/123_../../x.txt",
		tenantID + "/" + id + "/../" + other + "/123_x.txt",
		"other/" + id + "/123_x.txt",
		tenantID + "/" + id + "/abc_x.txt",
	} {
		if r := e.Do("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": sk}); r.Status != 400 || r.ErrDetails(t)["field"] != "storage_key" {
			t.Errorf("complete with %q: %d %s", sk, r.Status, r.Body)
		}
	}
}

// TestTamperedUploadAddressesAreRefused: any change to a signed upload address (its
// signature, expiry, size or key) is 403, so is an expired one; the body must have
// exactly the presigned size; presign enforces the size limit.
func TestTamperedUploadAddressesAreRefused(t *testing.T) {
	clk := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clk, func(c *node.Config) { c.MaxUpload = 1000 })
	key, _ := e.Register("uploader")
	id := e.Publish(key, nil)
	p := presign(t, e, key, id, map[string]any{"filename": "a.bin", "size_bytes": 4})
	up := p["uploadUrl"].(string)
	rest := strings.TrimPrefix(up, "/v1/storage/upload/")
	token, encKey, _ := strings.Cut(rest, "/")
	size, sig, _ := strings.Cut(token, "-")
	exp, mac, _ := strings.Cut(sig, ".")
	flip := func(s string) string {
		b := []byte(s)
		if b[len(b)-1] == 'a' {
			b[len(b)-1] = 'b'
		} else {
			b[len(b)-1] = 'a'
		}
		return string(b)
	}
	tampered := map[string]string{
		"signature":   "/v1/storage/upload/" + size + "-" + exp + "." + flip(mac) + "/" + encKey,
		"expiry":      "/v1/storage/upload/" + size + "-" + flip(exp) + "." + mac + "/" + encKey,
		"size":        "/v1/storage/upload/5-" + exp + "." + mac + "/" + encKey,
		"key":         "/v1/storage/upload/" + token + "/" + flip(encKey),
		"no token":    "/v1/storage/upload/" + encKey,
		"garbage":     "/v1/storage/upload/x/y",
		"traversal":   "/v1/storage/upload/" + token + "/..%2F..%2Fetc%2Fpasswd",
		"unsigned":    "/v1/storage/upload/4-/" + encKey,
		"no sig part": "/v1/storage/upload/4-" + exp + "/" + encKey,
	}
	for what, u := range tampered {
		body := "abcd"
		if what == "size" {
			body = "abcde"
		}
		if r := e.Do("PUT", u, "", body); r.Status != 403 || r.ErrCode(t) != "FORBIDDEN" {
			t.Errorf("tampered %s: %d %s", what, r.Status, r.Body)
		}
	}
	// Wrong sizes.
	for _, body := range []string{"abc", "abcde", ""} {
		if r := e.Do("PUT", up, "", body); r.Status != 400 {
			t.Errorf("body of %d bytes: %d %s", len(body), r.Status, r.Body)
		}
	}
	// Expired.
	clk.Advance(16 * time.Minute)
	if r := e.Do("PUT", up, "", "abcd"); r.Status != 403 {
		t.Errorf("expired: %d %s", r.Status, r.Body)
	}
	// Limits and validation at presign.
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"filename": "big", "size_bytes": 1001}, "size_bytes"},
		{map[string]any{"filename": "neg", "size_bytes": -1}, "size_bytes"},
		{map[string]any{"size_bytes": 1}, "filename"},
		{map[string]any{"filename": "x"}, "size_bytes"},
		{map[string]any{"filename": "x", "size_bytes": 1, "upload_type": "robot"}, "upload_type"},
		{map[string]any{"filename": "x", "size_bytes": 1, "mime_type": "not a type"}, "mime_type"},
	} {
		if r := e.Do("POST", "/v1/pages/"+id+"/files/presign", key, tc.body); r.Status != 400 || r.ErrDetails(t)["field"] != tc.field {
			t.Errorf("presign %v: %d %s", tc.body, r.Status, r.Body)
		}
	}
}

// TestAnonymousUploadsOnPublicPagesOnly: a viewer without a key may upload to an
// active public page (upload_type user; agent is the owner's); not to an
// authenticated page, a completed one, or another tenant's private one.
func TestAnonymousUploadsOnPublicPagesOnly(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	p := presign(t, e, "", id, map[string]any{"filename": "photo.jpg", "mime_type": "image/jpeg", "size_bytes": 3, "uploaded_by": "visitor"})
	if p["uploadType"] != "user" {
		t.Fatalf("anonymous upload type: %v", p)
	}
	e.Must(200, "PUT", p["uploadUrl"].(string), "", "abc")
	f := e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", "", map[string]any{"storage_key": p["storageKey"], "uploaded_by": "visitor"})
	if f["uploadType"] != "user" || f["uploadedBy"] != "visitor" || f["filename"] != "photo.jpg" {
		t.Fatalf("anonymous file: %v", f)
	}
	if r := e.Do("POST", "/v1/pages/"+id+"/files/presign", "", map[string]any{"filename": "x", "size_bytes": 1, "upload_type": "agent"}); r.Status != 403 {
		t.Fatalf("anonymous agent upload: %d %s", r.Status, r.Body)
	}
	private := e.Publish(key, map[string]any{"access": map[string]any{"mode": "authenticated", "allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	if r := e.Do("POST", "/v1/pages/"+private+"/files/presign", "", map[string]any{"filename": "x", "size_bytes": 1}); r.Status != 401 {
		t.Fatalf("anonymous upload to an authenticated page: %d", r.Status)
	}
	e.Must(200, "POST", "/v1/pages/"+id+"/actions/approve", key, nil)
	if r := e.Do("POST", "/v1/pages/"+id+"/files/presign", "", map[string]any{"filename": "x", "size_bytes": 1}); r.Status != 409 {
		t.Fatalf("upload to a completed page: %d %s", r.Status, r.Body)
	}
}

// TestOrphanUploadsAreSwept: bytes uploaded but never completed are removed once
// older than page.OrphanGrace (otherwise anyone with a public page's link could fill
// the disk); completed files are kept and still download.
func TestOrphanUploadsAreSwept(t *testing.T) {
	dir := t.TempDir()
	e := nodetest.Open(t, dir, nodetest.NewClock(time.Now()))
	key, _ := e.Register("sweeper")
	id := e.Publish(key, nil)
	kept := upload(t, e, key, id, "kept.txt", []byte("kept bytes"))
	p := presign(t, e, key, id, map[string]any{"filename": "orphan.txt", "mime_type": "text/plain", "size_bytes": 6})
	e.Must(200, "PUT", p["uploadUrl"].(string), "", []byte("orphan"))

	blobs, err := persistence.OpenBlobs(e.Node.Store, dir)
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		if err := blobs.Walk(func(persistence.StoredBlob) { n++ }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 2 {
		t.Fatalf("%d blobs stored, want 2", n)
	}
	if n, err := page.SweepOrphanBlobs(e.Node.Store, blobs, time.Now(), page.OrphanGrace); err != nil || n != 0 {
		t.Fatalf("a fresh upload was swept: %d %v", n, err)
	}
	if n, err := page.SweepOrphanBlobs(e.Node.Store, blobs, time.Now().Add(page.OrphanGrace+time.Minute), page.OrphanGrace); err != nil || n != 1 {
		t.Fatalf("sweep after the grace removed %d (%v), want the one orphan", n, err)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d blobs left, want 1", n)
	}
	res, body := get(t, e, http.DefaultClient, "/v1/pages/"+id+"/files/"+kept+"/download")
	if res.StatusCode != 200 || string(body) != "kept bytes" {
		t.Fatalf("the completed file after the sweep: %d %q", res.StatusCode, body)
	}
	r := e.Do("POST", "/v1/pages/"+id+"/files/complete", key, map[string]any{"storage_key": p["storageKey"], "filename": "orphan.txt", "mime_type": "text/plain"})
	if r.Status < 400 || r.Status >= 500 {
		t.Fatalf("completing a swept upload: %d %s", r.Status, r.Body)
	}
}

// TestPresignedUploadsCountAgainstThePageUntilTheyComplete: an upload presigned and
// never completed holds its place in the page's byte budget and file count, so
// presigning and PUTting without completing cannot store more than the budget; an
// expired reservation frees its place.
func TestPresignedUploadsCountAgainstThePageUntilTheyComplete(t *testing.T) {
	clock := nodetest.NewClock(time.Now())
	e := nodetest.Open(t, t.TempDir(), clock, func(c *node.Config) { c.PageUploadBudget = 12 << 20 })
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	five := 5 << 20
	p1 := presign(t, e, "", id, map[string]any{"filename": "a.bin", "size_bytes": five})
	e.Must(200, "PUT", p1["uploadUrl"].(string), "", bytes.Repeat([]byte{1}, five))
	presign(t, e, "", id, map[string]any{"filename": "b.bin", "size_bytes": five}) // never uploaded
	r := e.Do("POST", "/v1/pages/"+id+"/files/presign", "", map[string]any{"filename": "c.bin", "size_bytes": five})
	if r.Status != 409 || r.ErrDetails(t)["constraint"] != "page_upload_budget" || r.ErrDetails(t)["limit"] != float64(12<<20) {
		t.Fatalf("a third 5 MiB presign against a 12 MiB budget: %d %s", r.Status, r.Body)
	}
	// Completing the first keeps its bytes counted (now as a file), not twice.
	e.Must(201, "POST", "/v1/pages/"+id+"/files/complete", "", map[string]any{"storage_key": p1["storageKey"]})
	if r := e.Do("POST", "/v1/pages/"+id+"/files/presign", "", map[string]any{"filename": "c.bin", "size_bytes": five}); r.Status != 409 {
		t.Fatalf("presign while a file and a reservation fill the budget: %d %s", r.Status, r.Body)
	}
	presign(t, e, "", id, map[string]any{"filename": "small.bin", "size_bytes": 1 << 20})
	// Presigned uploads expire after 10 minutes and free their place.
	clock.Advance(11 * time.Minute)
	presign(t, e, "", id, map[string]any{"filename": "c.bin", "size_bytes": five})
}

// TestDownloadAddressesAreCheckedWhenUsed: a signed download address is refused once
// the page it belongs to turns private or is revoked, even before the address
// expires; one signed for the owner's key keeps working on a private page.
func TestDownloadAddressesAreCheckedWhenUsed(t *testing.T) {
	e := nodetest.New(t)
	key, _ := e.Register("owner")
	id := e.Publish(key, nil)
	fid := upload(t, e, key, id, "report.txt", []byte("the report"))
	signed := func(k string) string {
		req, _ := http.NewRequest("GET", e.Srv.URL+"/v1/pages/"+id+"/files/"+fid+"/download", nil)
		if k != "" {
			req.Header.Set("Authorization", "Bearer "+k)
		}
		res, err := noRedirect.Do(req)
		if err != nil || res.StatusCode != 302 {
			t.Fatalf("download: %v %v", res, err)
		}
		res.Body.Close()
		return res.Header.Get("Location")
	}
	anyone, owners := signed(""), signed(key)
	if res, body := get(t, e, http.DefaultClient, anyone); res.StatusCode != 200 || string(body) != "the report" {
		t.Fatalf("the anonymous address while public: %d %q", res.StatusCode, body)
	}
	e.Must(200, "PATCH", "/v1/pages/"+id, key, map[string]any{"access": map[string]any{"mode": "authenticated",
		"allowed_identities": []any{map[string]any{"type": "email", "value": "a@example.com"}}}})
	if res, body := get(t, e, http.DefaultClient, anyone); res.StatusCode == 200 || strings.Contains(string(body), "the report") {
		t.Fatalf("the anonymous address after the page turned private: %d %q", res.StatusCode, body)
	}
	if res, body := get(t, e, http.DefaultClient, owners); res.StatusCode != 200 || string(body) != "the report" {
		t.Fatalf("the owner's address on the private page: %d %q", res.StatusCode, body)
	}
	tampered := strings.Replace(anyone, "/anyone.", "/tenant-x.", 1)
	if res, _ := get(t, e, http.DefaultClient, tampered); res.StatusCode != 403 {
		t.Fatalf("an address whose reader was changed: %d", res.StatusCode)
	}
	public := e.Publish(key, nil)
	pf := upload(t, e, key, public, "b.txt", []byte("bytes"))
	res, _ := get(t, e, noRedirect, "/v1/pages/"+public+"/files/"+pf+"/download")
	loc := res.Header.Get("Location")
	e.Must(200, "POST", "/v1/pages/"+public+"/revoke", key, map[string]any{"reason": "x"})
	if res, _ := get(t, e, http.DefaultClient, loc); res.StatusCode != 404 {
		t.Fatalf("an address of a revoked page: %d", res.StatusCode)
	}
}
