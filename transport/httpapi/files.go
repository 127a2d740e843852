package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"folio/actors/model/fault"
	"folio/actors/page"
	"folio/actors/registry"
	"folio/actors/tenant"
	"folio/persistence"
	"folio/transport/apitypes"
)

// Signed storage addresses: /v1/storage/upload/<size>-<token>/<url-encoded key> and
// /v1/storage/download/<token>/<url-encoded key>, token = "<expiry>.<HMAC>" over the
// purpose, the key, the expiry (and the size for uploads). The address is the only
// credential the PUT and the blob download need; a changed byte anywhere is 403.

const (
	uploadPrefix   = "/v1/storage/upload/"
	downloadPrefix = "/v1/storage/download/"
	// transferTimeout replaces the server's read or write timeout (30 s / 60 s, which
	// bound JSON bodies and ordinary replies) for the file bytes themselves: 25 MiB
	// over a slow uplink needs minutes, and a sender slower than this is cut off.
	transferTimeout = 10 * time.Minute
)

// fileView is the file record (specification §2.5).
type fileView struct {
	ID         string    `json:"id"`
	PageID     string    `json:"pageId"`
	Filename   string    `json:"filename"`
	MimeType   string    `json:"mimeType"`
	SizeBytes  int64     `json:"sizeBytes"`
	StorageKey string    `json:"storageKey"`
	UploadedBy string    `json:"uploadedBy"`
	UploadType string    `json:"uploadType"`
	CreatedAt  time.Time `json:"createdAt"`
}

// fileListItem is a file as GET /v1/pages/:id/files lists it.
type fileListItem struct {
	ID         string    `json:"id"`
	Filename   string    `json:"filename"`
	MimeType   string    `json:"mimeType"`
	SizeBytes  int64     `json:"sizeBytes"`
	UploadedBy string    `json:"uploadedBy"`
	CreatedAt  time.Time `json:"createdAt"`
}

func viewFile(f *page.File) fileView {
	return fileView{ID: f.ID, PageID: f.PageID, Filename: f.Filename, MimeType: f.MimeType, SizeBytes: f.SizeBytes,
		StorageKey: f.StorageKey, UploadedBy: f.UploadedBy, UploadType: f.UploadType, CreatedAt: f.CreatedAt}
}

// presign is POST /v1/pages/:id/files/presign (credential optional on public pages).
func (rt *realtime) presign(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req page.FileRequest
	v, err := rt.viewerWithBody(w, r, &req, false)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	if req.SizeBytes != nil && *req.SizeBytes > 0 && *req.SizeBytes <= rt.d.MaxUpload {
		if err := rt.admitAnonUpload(w, r, v, *req.SizeBytes); err != nil {
			return err
		}
	}
	res, err := registry.Call[*page.Presigned](r.Context(), rt.pages, id, &page.PresignFile{Viewer: v, Req: &req})
	if err != nil {
		return err
	}
	exp := res.ExpiresAt
	size := strconv.FormatInt(res.SizeBytes, 10)
	token := size + "-" + rt.d.Blobs.Sign("put", res.StorageKey, exp, size)
	writeJSON(w, http.StatusOK, apitypes.FilePresigned{
		UploadURL:  uploadPrefix + token + "/" + url.PathEscape(res.StorageKey),
		StorageKey: res.StorageKey, Filename: res.Filename, MimeType: res.MimeType,
		SizeBytes: res.SizeBytes, UploadedBy: res.UploadedBy, UploadType: res.UploadType,
		ExpiresAt: exp.UTC().Truncate(time.Second),
	})
	return nil
}

// signedPath splits /<prefix><token>/<url-encoded key> (read from the raw path, so an
// encoded "/" in the key stays part of it).
func signedPath(r *http.Request, prefix string) (token, key string, ok bool) {
	rest, found := strings.CutPrefix(r.URL.EscapedPath(), prefix)
	if !found {
		return "", "", false
	}
	token, enc, found := strings.Cut(rest, "/")
	if !found || token == "" || enc == "" {
		return "", "", false
	}
	key, err := url.PathUnescape(enc)
	if err != nil || key == "" || len(key) > 1024 {
		return "", "", false
	}
	return token, key, true
}

func forbidden(msg string) error { return fault.New(fault.Forbidden, msg, nil) }

// upload is PUT /v1/storage/upload/…: the raw bytes of a presigned file.
func (rt *realtime) upload(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	token, key, ok := signedPath(r, uploadPrefix)
	if !ok {
		return forbidden("the upload address is not valid")
	}
	sizeStr, sig, found := strings.Cut(token, "-")
	size, err := strconv.ParseInt(sizeStr, 10, 64)
	if !found || err != nil || size < 0 || !rt.d.Blobs.Verify(sig, "put", key, rt.now(), sizeStr) {
		return forbidden("the upload address is not valid or has expired: presign again")
	}
	if size > rt.d.MaxUpload {
		return forbidden("the upload address is not valid")
	}
	if r.ContentLength >= 0 && r.ContentLength != size {
		e := fault.Field("body", "size_bytes", "the body must be exactly %d bytes, as presigned (got %d)", size, r.ContentLength)
		e.Details["expected"] = size
		return e
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(transferTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(transferTimeout))
	body := http.MaxBytesReader(w, r.Body, size+1)
	switch err := rt.d.Blobs.Put(key, body, size); {
	case errors.Is(err, persistence.ErrBlobExists):
		return fault.New(fault.Conflict, "this file was already uploaded", map[string]any{"storage_key": key})
	case errors.Is(err, persistence.ErrBlobSize):
		e := fault.Field("body", "size_bytes", "the body must be exactly %d bytes, as presigned", size)
		e.Details["expected"] = size
		return e
	case err != nil:
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fault.Field("body", "size_bytes", "the body must be exactly %d bytes, as presigned", size)
		}
		return err
	}
	writeJSON(w, http.StatusOK, apitypes.FileUploaded{StorageKey: key, SizeBytes: size})
	return nil
}

// completeUpload is POST /v1/pages/:id/files/complete.
func (rt *realtime) completeUpload(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	var req page.FileRequest
	v, err := rt.viewerWithBody(w, r, &req, false)
	if err != nil {
		return err
	}
	size := int64(-1)
	if req.StorageKey != nil && *req.StorageKey != "" && len(*req.StorageKey) <= 1024 {
		if n, err := rt.d.Blobs.Size(*req.StorageKey); err == nil {
			size = n
		}
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.FileResult](r.Context(), rt.pages, id, &page.CompleteFile{Viewer: v, Req: &req, Size: size})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, viewFile(res.File))
	return nil
}

// listFiles is GET /v1/pages/:id/files (no credential on public pages).
func (rt *realtime) listFiles(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	v, err := rt.viewerOf(r)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.FileResult](r.Context(), rt.pages, id, &page.ListFiles{Viewer: v})
	if err != nil {
		return err
	}
	out := make([]fileListItem, len(res.Files))
	for i, f := range res.Files {
		out[i] = fileListItem{ID: f.ID, Filename: f.Filename, MimeType: f.MimeType, SizeBytes: f.SizeBytes, UploadedBy: f.UploadedBy, CreatedAt: f.CreatedAt}
	}
	writeJSON(w, http.StatusOK, apitypes.FileList[fileListItem]{Files: out})
	return nil
}

// download is GET /v1/pages/:id/files/:fileId/download: 302 to a signed address that
// expires (a file of another page, or a deleted one, is 404).
func (rt *realtime) download(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	v, err := rt.viewerOf(r)
	if err != nil {
		return err
	}
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.FileResult](r.Context(), rt.pages, id, &page.GetFile{Viewer: v, FileID: ps.ByName("fileId")})
	if err != nil {
		return err
	}
	key, who := res.File.StorageKey, signedFor(v)
	token := who + "." + rt.d.Blobs.Sign("get", key, rt.now().Add(rt.d.DownloadTTL), who)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", downloadPrefix+token+"/"+url.PathEscape(key))
	w.WriteHeader(http.StatusFound)
	return nil
}

// signedFor names, inside a signed download address, whom it was signed for: the
// page's readers at large ("anyone"), or the key's tenant ("tenant-<id>"). The address
// is checked against the page's access for that reader again when it is used.
func signedFor(v page.Viewer) string {
	if v.TenantID != "" {
		return "tenant-" + v.TenantID
	}
	return "anyone"
}

// viewerSignedFor reverses signedFor.
func viewerSignedFor(who string) (page.Viewer, bool) {
	if who == "anyone" {
		return page.Viewer{}, true
	}
	if t, ok := strings.CutPrefix(who, "tenant-"); ok && t != "" {
		return page.Viewer{TenantID: t}, true
	}
	return page.Viewer{}, false
}

// serveBlob is GET /v1/storage/download/…: the bytes of a file, as an attachment
// that browsers never render or sniff. The address proves it was signed recently for
// someone; the page then decides, now, whether that someone may still read the file
// (the page may have turned private or been revoked since).
func (rt *realtime) serveBlob(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	token, key, ok := signedPath(r, downloadPrefix)
	who, sig, _ := strings.Cut(token, ".")
	v, known := viewerSignedFor(who)
	if !ok || !known || !rt.d.Blobs.Verify(sig, "get", key, rt.now(), who) {
		return forbidden("the download address is not valid or has expired")
	}
	f, err := page.FileByStorageKey(rt.store, key)
	if err != nil {
		return err // the store did not answer: 503, not 404
	}
	if f == nil {
		return fault.Missing("file", key)
	}
	id, err := pageID(f.PageID)
	if err != nil {
		return err
	}
	if _, err := registry.Call[*page.FileResult](r.Context(), rt.pages, id, &page.GetFile{Viewer: v, FileID: f.ID}); err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) && fe.Code == fault.Unauthorized {
			err = forbidden("the page no longer lets the reader this address was signed for see its files")
		}
		return err
	}
	blob, err := rt.d.Blobs.Open(key)
	if err != nil {
		return fault.Missing("file", f.ID)
	}
	defer func() { _ = blob.Close() }() // read only: nothing to lose
	// A large file over a slow link may take longer than the server's write timeout.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(transferTimeout))
	h := w.Header()
	h.Set("Content-Type", f.MimeType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Filename}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-store")
	http.ServeContent(w, r, "", f.CreatedAt, blob)
	return nil
}

// deleteFile is DELETE /v1/pages/:id/files/:fileId (the owner's key): the record
// goes in the page's commit, then the bytes.
func (rt *realtime) deleteFile(w http.ResponseWriter, r *http.Request, ps httprouter.Params, who tenant.Principal) error {
	id, err := pageID(ps.ByName("id"))
	if err != nil {
		return err
	}
	res, err := registry.Call[*page.FileResult](r.Context(), rt.pages, id, &page.DeleteFile{Caller: callerOf(who), FileID: ps.ByName("fileId")})
	if err != nil {
		return err
	}
	if err := rt.d.Blobs.Delete(res.File.StorageKey); err != nil {
		rt.log.Error("delete blob", "storage_key", res.File.StorageKey, "err", err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
