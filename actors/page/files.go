package page

import (
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"folio/actors/model/audit"
	"folio/actors/model/fault"
	"folio/actors/model/ids"
	"folio/persistence"
)

// Files (specification §4.6) are uploaded in three steps: presign (the page checks
// access and status and names the storage key), PUT of the bytes to a signed address
// (the transport writes the blob), complete (the page records the file). Records live
// in their own bucket keyed pageId|seq; the page keeps counters. The storage key is
// <tenant>/<pageId>/<epoch_millis>_<sanitised filename>: nothing a client sends can
// leave that page's prefix.

const (
	bucketFiles    = "files"     // pageId 0x00 seq(8) -> File (JSON)
	bucketFileIDs  = "file_ids"  // pageId 0x00 fileId -> seq(8)
	bucketFileKeys = "file_keys" // storageKey -> pageId 0x00 seq(8)
)

// File limits.
const (
	MaxFiles         = 100 // per page, presigned uploads included
	MaxFilenameChars = 200
	MaxMimeChars     = 127
)

// FileLimits are the node's upload settings (flags).
type FileLimits struct {
	// MaxBytes is the largest file (--max-upload, 25 MiB).
	MaxBytes int64
	// Budget is the most bytes one page holds in files, completed and presigned
	// (--page-upload-budget, 100 MiB).
	Budget int64
	// UploadTTL is how long a presigned upload may take to complete (10 minutes);
	// until then it holds its place in the page's count and budget.
	UploadTTL time.Duration
	// Retention is how long a page's files outlive the page's end (completed,
	// revoked, expired): then they are deleted (--file-retention, 30 days;
	// files_retention.go).
	Retention time.Duration
}

// DefaultFileLimits are the documented defaults.
var DefaultFileLimits = FileLimits{MaxBytes: 25 << 20, Budget: 100 << 20, UploadTTL: 10 * time.Minute, Retention: 30 * 24 * time.Hour}

// Upload is a presigned upload not completed yet: it reserves its size in the
// page's budget until it completes or Expires.
type Upload struct {
	Key     string    `json:"key"`
	Size    int64     `json:"size"`
	Expires time.Time `json:"expires"`
	// What presign was told, so that complete need not repeat it.
	MimeType   string `json:"mime_type,omitempty"`
	UploadedBy string `json:"uploaded_by,omitempty"`
	UploadType string `json:"upload_type,omitempty"`
}

// File is one stored file record.
type File struct {
	V          int       `json:"v"`
	ID         string    `json:"id"`
	PageID     string    `json:"page_id"`
	Seq        uint64    `json:"seq"`
	Filename   string    `json:"filename"`
	MimeType   string    `json:"mime_type"`
	SizeBytes  int64     `json:"size_bytes"`
	StorageKey string    `json:"storage_key"`
	UploadedBy string    `json:"uploaded_by"`
	UploadType string    `json:"upload_type"`
	CreatedAt  time.Time `json:"created_at"`
}

// FileRequest is the body of presign and complete.
type FileRequest struct {
	Filename   *string `json:"filename"`
	MimeType   *string `json:"mime_type"`
	SizeBytes  *int64  `json:"size_bytes"`
	UploadedBy *string `json:"uploaded_by"`
	UploadType *string `json:"upload_type"`
	StorageKey *string `json:"storage_key"`
}

// PresignFile checks that v may upload to the page, reserves the file's place in
// the page's count and byte budget, and names the storage key; the transport signs
// the upload address until ExpiresAt.
type PresignFile struct {
	Viewer
	Req *FileRequest
}

// Presigned answers PresignFile.
type Presigned struct {
	ExpiresAt  time.Time
	StorageKey string
	Filename   string
	MimeType   string
	SizeBytes  int64
	UploadedBy string
	UploadType string
}

// CompleteFile records an uploaded file; Size is the stored blob's size (-1 when no
// blob exists under the key).
type CompleteFile struct {
	Viewer
	Req  *FileRequest
	Size int64
}

// ListFiles reads the page's files in upload order.
type ListFiles struct{ Viewer }

// GetFile reads one file of the page (for its download).
type GetFile struct {
	Viewer
	FileID string
}

// DeleteFile removes a file record (the owner's key, any status); the transport then
// removes the bytes.
type DeleteFile struct {
	Caller
	FileID string
}

// FileResult answers the file messages.
type FileResult struct {
	File  *File
	Files []*File
}

func (m *PresignFile) public()  {}
func (m *CompleteFile) public() {}
func (m *ListFiles) public()    {}
func (m *GetFile) public()      {}

func (m *PresignFile) run(a *Actor) any  { return a.presign(m) }
func (m *CompleteFile) run(a *Actor) any { return a.completeFile(m) }
func (m *ListFiles) run(a *Actor) any    { return a.listFiles(m) }
func (m *GetFile) run(a *Actor) any      { return a.getFile(m) }
func (m *DeleteFile) run(a *Actor) any   { return a.deleteFile(m) }

// sanitizeFilename makes a client's filename safe as the last part of a storage key
// and in a Content-Disposition header: only its last path element is kept; control
// characters are dropped; separators, quotes, reserved and space characters become
// "_"; leading dots are removed (no "..", no hidden files); at most 200 characters.
// An empty result is "file".
func sanitizeFilename(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == utf8.RuneError || unicode.IsControl(r) || r == 0x7f || unicode.Is(unicode.Cf, r):
			continue
		case unicode.IsSpace(r) || strings.ContainsRune(`/\:*?"<>|%;`+"`", r):
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	out = strings.ReplaceAll(out, "..", "_")
	if utf8.RuneCountInString(out) > MaxFilenameChars {
		out = string([]rune(out)[:MaxFilenameChars])
	}
	if out == "" {
		out = "file"
	}
	return out
}

// mediaType checks a media type, parameters allowed ("text/html; charset=utf-8"),
// and returns it in canonical form (lower-case type, parameters normalised): it is
// served back as the file's Content-Type.
func mediaType(s string) (string, error) {
	typ, params, err := mime.ParseMediaType(s)
	if err != nil || strings.Count(typ, "/") != 1 || strings.HasPrefix(typ, "/") || strings.HasSuffix(typ, "/") {
		return "", fault.Field("mime_type", "format", "mime_type must be a media type such as application/pdf or text/plain; charset=utf-8")
	}
	out := mime.FormatMediaType(typ, params)
	if out == "" || len(out) > MaxMimeChars {
		return "", fault.Field("mime_type", "format", "mime_type must be a media type of at most %d characters", MaxMimeChars)
	}
	return out, nil
}

func optString(field string, s *string, maxChars int) (string, error) {
	if s == nil {
		return "", nil
	}
	v := strings.TrimSpace(*s)
	if utf8.RuneCountInString(v) > maxChars {
		return "", fault.Limit(field, "max_length", maxChars, "%s has at most %d characters", field, maxChars)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return "", fault.Field(field, "format", "%s must not contain control characters", field)
		}
	}
	return v, nil
}

// fileMeta validates the descriptive fields shared by presign and complete.
func (a *Actor) fileMeta(v Viewer, req *FileRequest) (mime, by, typ string, err error) {
	if mime, err = optString("mime_type", req.MimeType, MaxMimeChars); err != nil {
		return
	}
	if mime == "" {
		mime = "application/octet-stream"
	} else if mime, err = mediaType(mime); err != nil {
		return
	}
	if by, err = optString("uploaded_by", req.UploadedBy, MaxAuthorChars); err != nil {
		return
	}
	if v.Person != "" {
		by = v.Person // a signed-in person uploads as their verified address
	}
	typ = "user"
	if a.owns(v) {
		typ = "agent"
	}
	if req.UploadType != nil && *req.UploadType != "" {
		typ = *req.UploadType
	}
	switch typ {
	case "user":
	case "agent":
		if !a.owns(v) {
			err = fault.New(fault.Forbidden, "upload_type agent needs an API key of the page's tenant", map[string]any{"field": "upload_type"})
			return
		}
	default:
		err = fault.Field("upload_type", "enum", "upload_type must be agent or user")
		return
	}
	if by == "" {
		by = actorOf(v, "")
	}
	return
}

// uploadRequest checks that v may upload to the page now and returns the request
// (empty when none was sent), for both steps that take one: presign and complete.
func (a *Actor) uploadRequest(v Viewer, req *FileRequest) (*FileRequest, error) {
	if err := a.visible(v); err != nil {
		return nil, err
	}
	if err := a.writable(v, "upload files to"); err != nil {
		return nil, err
	}
	if req == nil {
		req = &FileRequest{}
	}
	return req, nil
}

func (a *Actor) keyPrefix() string { return a.page.TenantID + "/" + a.id + "/" }

func (a *Actor) presign(m *PresignFile) any {
	req, err := a.uploadRequest(m.Viewer, m.Req)
	if err != nil {
		return err
	}
	lim := a.deps.files()
	if req.Filename == nil || strings.TrimSpace(*req.Filename) == "" {
		return fault.Field("filename", "required", "filename is required")
	}
	if len(*req.Filename) > 1024 {
		return fault.Limit("filename", "max_length", 1024, "filename has at most 1024 bytes")
	}
	if req.SizeBytes == nil {
		return fault.Field("size_bytes", "required", "size_bytes is required")
	}
	if *req.SizeBytes < 0 {
		return fault.Field("size_bytes", "minimum", "size_bytes must not be negative")
	}
	if *req.SizeBytes > lim.MaxBytes {
		e := fault.Field("size_bytes", "maximum", "files are at most %d bytes", lim.MaxBytes)
		e.Details["limit"] = lim.MaxBytes
		return e
	}
	mime, by, typ, err := a.fileMeta(m.Viewer, req)
	if err != nil {
		return err
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Uploads = liveUploads(next.Uploads, now)
	if err := roomFor(next, *req.SizeBytes, lim, ""); err != nil {
		return err
	}
	if err := a.storageRoom(next, *req.SizeBytes); err != nil {
		return err
	}
	name := sanitizeFilename(*req.Filename)
	key := a.keyPrefix() + strconv.FormatInt(now.UnixMilli(), 10) + "_" + name
	for _, u := range next.Uploads {
		if u.Key == key {
			return fault.New(fault.Conflict, "an upload of this file name was presigned this very millisecond; presign again",
				map[string]any{"status": a.page.Status, "storage_key": key})
		}
	}
	exp := now.Add(lim.UploadTTL)
	next.Uploads = append(next.Uploads, Upload{Key: key, Size: *req.SizeBytes, Expires: exp, MimeType: mime, UploadedBy: by, UploadType: typ})
	if err := a.apply(next, nil, nil); err != nil {
		return err
	}
	return &Presigned{ExpiresAt: exp, StorageKey: key, Filename: name, MimeType: mime, SizeBytes: *req.SizeBytes, UploadedBy: by, UploadType: typ}
}

// liveUploads drops the presigned uploads whose time is up (their bytes, if any
// came, are orphans for the sweep).
func liveUploads(us []Upload, now time.Time) []Upload {
	out := us[:0]
	for _, u := range us {
		if now.Before(u.Expires) {
			out = append(out, u)
		}
	}
	return out
}

// roomFor checks that p can take one more file of size bytes: completed files and
// presigned uploads (except the one named by completing, which is already counted)
// stay within MaxFiles and the page's byte budget. A full page is 409 naming the
// limit.
func roomFor(p *Page, size int64, lim FileLimits, completing string) error {
	files, bytes := p.FileCount, p.FileBytes
	for _, u := range p.Uploads {
		if u.Key != completing {
			files++
			bytes += u.Size
		}
	}
	if files >= MaxFiles {
		return fault.New(fault.Conflict, "the page has the most files it can hold (presigned uploads included)",
			map[string]any{"status": p.Status, "constraint": "max_files", "limit": MaxFiles})
	}
	if bytes+size > lim.Budget {
		return fault.New(fault.Conflict, fmt.Sprintf("the page's files would exceed its budget of %d bytes (presigned uploads included)", lim.Budget),
			map[string]any{"status": p.Status, "constraint": "page_upload_budget", "limit": lim.Budget, "used": bytes})
	}
	return nil
}

// storageRoom refuses a presign early when the tenant's stored bytes, this page's
// uploads in flight and size would pass the plan's storage quota. It is advice read
// outside any transaction: completing the upload checks again, exactly, in the
// transaction that records the file (checkStorage).
func (a *Actor) storageRoom(p *Page, size int64) error {
	limit := a.deps.storageQuota(p.TenantID)
	if limit <= 0 {
		return nil
	}
	used, err := storedOf(a.deps.Store, p.TenantID)
	if err != nil {
		return err
	}
	pending := size
	for _, u := range p.Uploads {
		pending += u.Size
	}
	if used.Total()+pending > limit {
		return storageFull(limit, used, pending)
	}
	return nil
}

// ownKey tells whether key is a storage key this page could have issued.
func (a *Actor) ownKey(key string) bool {
	rest, ok := strings.CutPrefix(key, a.keyPrefix())
	if !ok {
		return false
	}
	millis, name, ok := strings.Cut(rest, "_")
	if !ok || millis == "" || strings.Trim(millis, "0123456789") != "" || len(millis) > 15 {
		return false
	}
	return sanitizeFilename(name) == name
}

func (a *Actor) completeFile(m *CompleteFile) any {
	req, err := a.uploadRequest(m.Viewer, m.Req)
	if err != nil {
		return err
	}
	if req.StorageKey == nil || *req.StorageKey == "" {
		return fault.Field("storage_key", "required", "storage_key is required")
	}
	key := *req.StorageKey
	if !a.ownKey(key) {
		return fault.Field("storage_key", "format", "storage_key must be a key presigned for this page")
	}
	if m.Size < 0 {
		return fault.Field("storage_key", "uploaded", "nothing was uploaded under storage_key: PUT the bytes to the uploadUrl first")
	}
	for _, u := range a.page.Uploads { // what presign was told stands unless complete says otherwise
		if u.Key == key {
			r := *req
			if r.MimeType == nil && u.MimeType != "" {
				r.MimeType = &u.MimeType
			}
			if r.UploadedBy == nil && u.UploadedBy != "" {
				r.UploadedBy = &u.UploadedBy
			}
			if r.UploadType == nil && u.UploadType != "" && (u.UploadType != "agent" || a.owns(m.Viewer)) {
				r.UploadType = &u.UploadType
			}
			req = &r
		}
	}
	mime, by, typ, err := a.fileMeta(m.Viewer, req)
	if err != nil {
		return err
	}
	_, keyName, _ := strings.Cut(strings.TrimPrefix(key, a.keyPrefix()), "_")
	name := keyName
	if req.Filename != nil && strings.TrimSpace(*req.Filename) != "" {
		if len(*req.Filename) > 1024 {
			return fault.Limit("filename", "max_length", 1024, "filename has at most 1024 bytes")
		}
		name = sanitizeFilename(*req.Filename)
	}
	var taken bool
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		taken = tx.Get(bucketFileKeys, []byte(key)) != nil
		return nil
	}); err != nil {
		return fmt.Errorf("page: upload %s: %w", key, err)
	}
	if taken {
		return fault.New(fault.Conflict, "this upload is already complete", map[string]any{"status": a.page.Status, "storage_key": key})
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	next.Uploads = liveUploads(next.Uploads, now)
	if err := roomFor(next, m.Size, a.deps.files(), key); err != nil {
		return err
	}
	for i, u := range next.Uploads {
		if u.Key == key {
			next.Uploads = append(next.Uploads[:i], next.Uploads[i+1:]...)
			break
		}
	}
	next.FileSeq++
	next.FileCount++
	next.FileBytes += m.Size
	f := &File{V: 1, ID: ids.New("file"), PageID: a.id, Seq: next.FileSeq, Filename: name, MimeType: mime, SizeBytes: m.Size,
		StorageKey: key, UploadedBy: by, UploadType: typ, CreatedAt: now}
	entry := audit.New("file.uploaded", actorOf(m.Viewer, by), a.id, now, map[string]any{"file_id": f.ID, "filename": f.Filename, "size_bytes": f.SizeBytes})
	ev := a.event(now, FileUploaded{FileID: f.ID, Filename: f.Filename, MimeType: f.MimeType, SizeBytes: f.SizeBytes})
	quota := a.deps.storageQuota(a.page.TenantID)
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	put := func(tx *persistence.Tx) error {
		if err := checkStorage(tx, a.page.TenantID, quota, f.SizeBytes); err != nil {
			return err
		}
		if err := AddStored(tx, a.page.TenantID, StoredFiles, f.SizeBytes); err != nil {
			return err
		}
		if err := tx.Put(bucketFiles, commentKey(a.id, f.Seq), b); err != nil {
			return err
		}
		if err := tx.Put(bucketFileIDs, commentIDKey(a.id, f.ID), persistence.U64(f.Seq)); err != nil {
			return err
		}
		return tx.Put(bucketFileKeys, []byte(key), commentKey(a.id, f.Seq))
	}
	if err := a.applyWith(next, []audit.Entry{entry}, []Event{ev}, put); err != nil {
		return err
	}
	return &FileResult{File: f}
}

// findFile reads one file of this page by id: ok false when there is none, err
// when the store did not answer.
func (a *Actor) findFile(id string) (*File, bool, error) {
	if id == "" || len(id) > 64 {
		return nil, false, nil
	}
	var f *File
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		seq := tx.Get(bucketFileIDs, commentIDKey(a.id, id))
		if seq == nil {
			return nil
		}
		f = decodeFile(tx.Get(bucketFiles, commentKey(a.id, persistence.ReadU64(seq))))
		return nil
	}); err != nil {
		return nil, false, fmt.Errorf("page: file %s: %w", id, err)
	}
	return f, f != nil, nil
}

func decodeFile(b []byte) *File {
	if b == nil {
		return nil
	}
	f := &File{}
	if json.Unmarshal(b, f) != nil {
		return nil
	}
	return f
}

func (a *Actor) listFiles(m *ListFiles) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	out := []*File{}
	if err := a.deps.Store.View(func(tx *persistence.Tx) error {
		tx.Scan(bucketFiles, append([]byte(a.id), 0), false, func(_, v []byte) bool {
			if f := decodeFile(v); f != nil {
				out = append(out, f)
			}
			return true
		})
		return nil
	}); err != nil {
		return fmt.Errorf("page: files of %s: %w", a.id, err) // not "no files"
	}
	return &FileResult{Files: out}
}

func (a *Actor) getFile(m *GetFile) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	f, ok, err := a.findFile(m.FileID)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Missing("file", m.FileID)
	}
	return &FileResult{File: f}
}

func (a *Actor) deleteFile(m *DeleteFile) any {
	f, ok, err := a.findFile(m.FileID)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Missing("file", m.FileID)
	}
	now := a.deps.Now().UTC()
	next := a.page.clone()
	if next.FileCount > 0 {
		next.FileCount--
	}
	next.FileBytes = max(next.FileBytes-f.SizeBytes, 0)
	entry := audit.New("file.deleted", m.Agent, a.id, now, map[string]any{"file_id": f.ID, "filename": f.Filename})
	ev := a.event(now, fileDeleted{FileID: f.ID, Filename: f.Filename})
	del := func(tx *persistence.Tx) error {
		if err := tx.Delete(bucketFiles, commentKey(a.id, f.Seq)); err != nil {
			return err
		}
		if err := tx.Delete(bucketFileIDs, commentIDKey(a.id, f.ID)); err != nil {
			return err
		}
		if err := AddStored(tx, a.page.TenantID, StoredFiles, -f.SizeBytes); err != nil {
			return err
		}
		return tx.Delete(bucketFileKeys, []byte(f.StorageKey))
	}
	if err := a.applyWith(next, []audit.Entry{entry}, []Event{ev}, del); err != nil {
		return err
	}
	return &FileResult{File: f}
}

// FileByStorageKey finds the live file record stored under key (nil when none: never
// completed, or deleted), for serving its bytes. err is a store that did not
// answer, never "no such file".
func FileByStorageKey(store *persistence.Store, key string) (*File, error) {
	var f *File
	if err := store.View(func(tx *persistence.Tx) error {
		k := tx.Get(bucketFileKeys, []byte(key))
		if k == nil {
			return nil
		}
		f = decodeFile(tx.Get(bucketFiles, k))
		return nil
	}); err != nil {
		return nil, fmt.Errorf("page: file by storage key: %w", err)
	}
	return f, nil
}
