package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// FakeGitHub is an httptest server standing for the GitHub REST API's releases endpoints, as
// `plaios publish` uses them through go-github. It answers with GitHub's real response shapes
// (field names, status codes, error documents, Link pagination headers) and keeps its state in
// memory where tests can read it:
//
//   - GET  /repos/{owner}/{repo}/releases?per_page=&page=   every release, drafts included
//     (the caller has push access), newest first, paginated with a Link header;
//   - POST /repos/{owner}/{repo}/releases                   201 with the release; 422
//     `already_exists` when a published release already has the tag (drafts may share a tag,
//     as on GitHub, which is why a careless client can create duplicates);
//   - PATCH /repos/{owner}/{repo}/releases/{id}             200; publishing a draft whose tag
//     another published release holds is 422 `already_exists`;
//   - GET  /repos/{owner}/{repo}/releases/{id}              200 or 404;
//   - GET  /repos/{owner}/{repo}/releases/tags/{tag}        published releases only: a draft
//     is 404, as on GitHub;
//   - any request without `Authorization: Bearer <Token>` (or `token <Token>`) is 401 Bad
//     credentials; an unknown repository is 404.
//
// Faults are injected with Inject: the next matching requests fail with a status, or are
// carried out and then answered with a failure (a lost answer), or have their connection
// closed without an answer.
type FakeGitHub struct {
	URL   string // the API base URL (what GITHUB_API_URL holds)
	Token string // the token requests must carry

	// PerPageMax caps per_page as GitHub does (100); tests lower it to exercise pagination.
	PerPageMax int

	srv *httptest.Server

	mu       sync.Mutex
	repos    map[string]*fakeRepo
	nextID   int64
	faults   []*Fault
	requests []GitHubRequest
}

type fakeRepo struct {
	id       int64
	releases []*GitHubRelease
}

// GitHubRelease is a release in GitHub's JSON shape.
type GitHubRelease struct {
	URL             string     `json:"url"`
	AssetsURL       string     `json:"assets_url"`
	UploadURL       string     `json:"upload_url"`
	HTMLURL         string     `json:"html_url"`
	ID              int64      `json:"id"`
	Author          GitHubUser `json:"author"`
	NodeID          string     `json:"node_id"`
	TagName         string     `json:"tag_name"`
	TargetCommitish string     `json:"target_commitish"`
	Name            *string    `json:"name"`
	Draft           bool       `json:"draft"`
	Immutable       bool       `json:"immutable"`
	Prerelease      bool       `json:"prerelease"`
	CreatedAt       string     `json:"created_at"`
	UpdatedAt       string     `json:"updated_at"`
	PublishedAt     *string    `json:"published_at"`
	Assets          []any      `json:"assets"`
	TarballURL      *string    `json:"tarball_url"`
	ZipballURL      *string    `json:"zipball_url"`
	Body            *string    `json:"body"`
}

// GitHubUser is the author of a release, in GitHub's shape (the fields a release carries).
type GitHubUser struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	AvatarURL string `json:"avatar_url"`
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
}

// GitHubRequest is one request the fake answered.
type GitHubRequest struct {
	Method string
	Path   string // with the query
	Status int    // 0 when the connection was closed without an answer
}

// Fault makes the next matching requests fail.
type Fault struct {
	Method string // "" matches any method
	Path   string // a substring of the request path; "" matches any
	Status int    // the status to answer with (502, 500, 503…)
	Times  int    // how many matching requests fail (0 means 1)
	After  bool   // carry the request out first, then answer Status: the answer is lost
	Reset  bool   // close the connection without answering (after the work when After)

	Header map[string]string // headers of the failed answer (X-RateLimit-Remaining: 0, Retry-After…)
}

// GitHub starts a fake GitHub API serving the given repositories ("owner/name") and stops it
// when the test ends.
func GitHub(t testing.TB, repos ...string) *FakeGitHub {
	t.Helper()
	tok := make([]byte, 18)
	if _, err := rand.Read(tok); err != nil {
		t.Fatal(err)
	}
	g := &FakeGitHub{Token: "ghs_" + hex.EncodeToString(tok), PerPageMax: 100, repos: map[string]*fakeRepo{}, nextID: 100}
	for i, r := range repos {
		g.repos[strings.ToLower(r)] = &fakeRepo{id: int64(7000 + i)}
	}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	g.URL = g.srv.URL + "/"
	t.Cleanup(g.srv.Close)
	return g
}

// Inject queues a fault; faults are matched in the order they were injected.
func (g *FakeGitHub) Inject(f Fault) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f.Times <= 0 {
		f.Times = 1
	}
	g.faults = append(g.faults, &f)
}

// PendingFaults returns how many injected failures have not happened yet.
func (g *FakeGitHub) PendingFaults() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, f := range g.faults {
		n += f.Times
	}
	return n
}

// Releases returns a copy of a repository's releases, oldest first.
func (g *FakeGitHub) Releases(repo string) []GitHubRelease {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[strings.ToLower(repo)]
	if r == nil {
		return nil
	}
	out := make([]GitHubRelease, len(r.releases))
	for i, rel := range r.releases {
		out[i] = *rel
	}
	return out
}

// Requests returns the requests answered so far.
func (g *FakeGitHub) Requests() []GitHubRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]GitHubRequest(nil), g.requests...)
}

// Count returns how many answered requests had this method and a path containing path.
func (g *FakeGitHub) Count(method, path string) int {
	n := 0
	for _, r := range g.Requests() {
		if r.Method == method && strings.Contains(r.Path, path) {
			n++
		}
	}
	return n
}

// AddRelease puts a release in a repository as if someone had made it on github.com.
func (g *FakeGitHub) AddRelease(repo, tag, target, name, body string, draft bool) GitHubRelease {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.repos[strings.ToLower(repo)]
	if r == nil {
		r = &fakeRepo{id: int64(7000 + len(g.repos))}
		g.repos[strings.ToLower(repo)] = r
	}
	rel := g.newRelease(repo, tag, target, name, body, draft, false)
	r.releases = append(r.releases, rel)
	return *rel
}

func (g *FakeGitHub) takeFault(method, path string) *Fault {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, f := range g.faults {
		if (f.Method == "" || f.Method == method) && strings.Contains(path, f.Path) {
			f.Times--
			if f.Times == 0 {
				g.faults = append(g.faults[:i], g.faults[i+1:]...)
			}
			c := *f
			return &c
		}
	}
	return nil
}

func (g *FakeGitHub) record(method, path string, status int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, GitHubRequest{Method: method, Path: path, Status: status})
}

// recorder captures the status a handler wrote, so that an "after" fault can replace it.
type recorder struct {
	header http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(p []byte) (int, error) { r.body = append(r.body, p...); return len(p), nil }
func (r *recorder) WriteHeader(status int)      { r.status = status }

func (g *FakeGitHub) serve(w http.ResponseWriter, req *http.Request) {
	path := req.URL.Path
	if req.URL.RawQuery != "" {
		path += "?" + req.URL.RawQuery
	}
	fault := g.takeFault(req.Method, req.URL.Path)
	if fault != nil && !fault.After {
		g.fail(w, req, path, fault)
		return
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	g.handle(rec, req)
	if fault != nil {
		g.fail(w, req, path, fault)
		return
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body)
	g.record(req.Method, path, rec.status)
}

func (g *FakeGitHub) fail(w http.ResponseWriter, req *http.Request, path string, f *Fault) {
	if f.Reset {
		g.record(req.Method, path, 0)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	status := f.Status
	if status == 0 {
		status = http.StatusBadGateway
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"message":"Server Error","documentation_url":"https://docs.github.com/rest","status":"%d"}`, status)
	g.record(req.Method, path, status)
}

func (g *FakeGitHub) handle(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%d", time.Now().UnixNano()))
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4999")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Used", "1")
	h.Set("X-RateLimit-Resource", "core")

	auth := req.Header.Get("Authorization")
	if auth != "Bearer "+g.Token && auth != "token "+g.Token {
		writeGitHubError(w, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest", nil)
		return
	}
	// /repos/{owner}/{repo}/releases[/...] or /repositories/{id}/releases (Link URLs).
	parts := strings.SplitN(strings.TrimPrefix(req.URL.EscapedPath(), "/"), "/", 4)
	var repoName string
	var repo *fakeRepo
	var rest string
	g.mu.Lock()
	switch {
	case len(parts) >= 4 && parts[0] == "repos":
		repoName = parts[1] + "/" + parts[2]
		repo = g.repos[strings.ToLower(repoName)]
		rest = parts[3]
	case len(parts) >= 3 && parts[0] == "repositories":
		for name, r := range g.repos {
			if strconv.FormatInt(r.id, 10) == parts[1] {
				repoName, repo = name, r
			}
		}
		rest = strings.Join(parts[2:], "/")
	}
	g.mu.Unlock()
	if repo == nil {
		writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/releases/releases#list-releases", nil)
		return
	}
	switch {
	case rest == "releases" && req.Method == http.MethodGet:
		g.list(w, req, repoName, repo)
	case rest == "releases" && req.Method == http.MethodPost:
		g.create(w, req, repoName, repo)
	case strings.HasPrefix(rest, "releases/tags/") && req.Method == http.MethodGet:
		tag, err := url.PathUnescape(strings.TrimPrefix(rest, "releases/tags/"))
		if err != nil {
			writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/releases/releases#get-a-release-by-tag-name", nil)
			return
		}
		g.mu.Lock()
		var found *GitHubRelease
		for _, r := range repo.releases {
			if r.TagName == tag && !r.Draft {
				c := *r
				found = &c
			}
		}
		g.mu.Unlock()
		if found == nil {
			writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/releases/releases#get-a-release-by-tag-name", nil)
			return
		}
		writeJSON(w, http.StatusOK, found)
	case strings.HasPrefix(rest, "releases/"):
		id, err := strconv.ParseInt(strings.TrimPrefix(rest, "releases/"), 10, 64)
		if err != nil {
			writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest", nil)
			return
		}
		switch req.Method {
		case http.MethodGet:
			g.mu.Lock()
			var found *GitHubRelease
			for _, r := range repo.releases {
				if r.ID == id {
					c := *r
					found = &c
				}
			}
			g.mu.Unlock()
			if found == nil {
				writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/releases/releases#get-a-release", nil)
				return
			}
			writeJSON(w, http.StatusOK, found)
		case http.MethodPatch:
			g.update(w, req, repoName, repo, id)
		default:
			writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest", nil)
		}
	default:
		writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest", nil)
	}
}

func (g *FakeGitHub) list(w http.ResponseWriter, req *http.Request, repoName string, repo *fakeRepo) {
	q := req.URL.Query()
	perPage := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = v
	}
	if perPage > g.PerPageMax {
		perPage = g.PerPageMax
	}
	page := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	g.mu.Lock()
	all := make([]GitHubRelease, len(repo.releases))
	for i, r := range repo.releases {
		all[i] = *r
	}
	g.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].ID > all[j].ID }) // newest first
	last := max(1, (len(all)+perPage-1)/perPage)
	lo := min(len(all), (page-1)*perPage)
	hi := min(len(all), lo+perPage)
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%srepositories/%d/releases?per_page=%d&page=%d>; rel="%s"`, g.URL, repo.id, perPage, p, rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	writeJSON(w, http.StatusOK, all[lo:hi])
}

type releaseRequest struct {
	TagName         *string `json:"tag_name"`
	TargetCommitish *string `json:"target_commitish"`
	Name            *string `json:"name"`
	Body            *string `json:"body"`
	Draft           *bool   `json:"draft"`
	Prerelease      *bool   `json:"prerelease"`
	MakeLatest      *string `json:"make_latest"`
}

func (g *FakeGitHub) create(w http.ResponseWriter, req *http.Request, repoName string, repo *fakeRepo) {
	var in releaseRequest
	if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
		writeGitHubError(w, http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/rest/releases/releases#create-a-release", nil)
		return
	}
	if in.TagName == nil || *in.TagName == "" {
		writeGitHubError(w, http.StatusUnprocessableEntity, "Validation Failed", "https://docs.github.com/rest/releases/releases#create-a-release",
			[]map[string]string{{"resource": "Release", "code": "missing_field", "field": "tag_name"}})
		return
	}
	draft := in.Draft != nil && *in.Draft
	g.mu.Lock()
	defer g.mu.Unlock()
	if !draft && publishedTag(repo, *in.TagName, 0) {
		writeGitHubError(w, http.StatusUnprocessableEntity, "Validation Failed", "https://docs.github.com/rest/releases/releases#create-a-release",
			[]map[string]string{{"resource": "Release", "code": "already_exists", "field": "tag_name"}})
		return
	}
	target := "main"
	if in.TargetCommitish != nil && *in.TargetCommitish != "" {
		target = *in.TargetCommitish
	}
	name := ""
	if in.Name != nil {
		name = *in.Name
	}
	body := ""
	if in.Body != nil {
		body = *in.Body
	}
	rel := g.newRelease(repoName, *in.TagName, target, name, body, draft, in.Prerelease != nil && *in.Prerelease)
	repo.releases = append(repo.releases, rel)
	writeJSON(w, http.StatusCreated, rel)
}

func (g *FakeGitHub) update(w http.ResponseWriter, req *http.Request, repoName string, repo *fakeRepo, id int64) {
	var in releaseRequest
	if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
		writeGitHubError(w, http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/rest/releases/releases#update-a-release", nil)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var rel *GitHubRelease
	for _, r := range repo.releases {
		if r.ID == id {
			rel = r
		}
	}
	if rel == nil {
		writeGitHubError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/releases/releases#update-a-release", nil)
		return
	}
	tag := rel.TagName
	if in.TagName != nil {
		tag = *in.TagName
	}
	draft := rel.Draft
	if in.Draft != nil {
		draft = *in.Draft
	}
	if !draft && publishedTag(repo, tag, rel.ID) {
		writeGitHubError(w, http.StatusUnprocessableEntity, "Validation Failed", "https://docs.github.com/rest/releases/releases#update-a-release",
			[]map[string]string{{"resource": "Release", "code": "already_exists", "field": "tag_name"}})
		return
	}
	rel.TagName = tag
	if in.TargetCommitish != nil {
		rel.TargetCommitish = *in.TargetCommitish
	}
	if in.Name != nil {
		rel.Name = in.Name
	}
	if in.Body != nil {
		rel.Body = in.Body
	}
	if in.Prerelease != nil {
		rel.Prerelease = *in.Prerelease
	}
	now := time.Now().UTC().Format(time.RFC3339)
	rel.UpdatedAt = now
	if rel.Draft && !draft {
		rel.PublishedAt = &now
	}
	rel.Draft = draft
	g.urls(repoName, rel)
	writeJSON(w, http.StatusOK, rel)
}

// publishedTag reports whether a published release other than except holds tag.
func publishedTag(repo *fakeRepo, tag string, except int64) bool {
	for _, r := range repo.releases {
		if r.TagName == tag && !r.Draft && r.ID != except {
			return true
		}
	}
	return false
}

// newRelease makes a release; the caller holds g.mu.
func (g *FakeGitHub) newRelease(repoName, tag, target, name, body string, draft, prerelease bool) *GitHubRelease {
	g.nextID++
	now := time.Now().UTC().Format(time.RFC3339)
	rel := &GitHubRelease{
		ID:              g.nextID,
		NodeID:          fmt.Sprintf("RE_kwDOFake%d", g.nextID),
		TagName:         tag,
		TargetCommitish: target,
		Name:            &name,
		Body:            &body,
		Draft:           draft,
		Prerelease:      prerelease,
		CreatedAt:       now,
		UpdatedAt:       now,
		Assets:          []any{},
		Author: GitHubUser{Login: "github-actions[bot]", ID: 41898282, NodeID: "MDM6Qm90NDE4OTgyODI=",
			AvatarURL: "https://avatars.githubusercontent.com/in/15368?v=4", URL: g.URL + "users/github-actions%5Bbot%5D",
			HTMLURL: "https://github.com/apps/github-actions", Type: "Bot"},
	}
	if !draft {
		rel.PublishedAt = &now
	}
	g.urls(repoName, rel)
	return rel
}

// urls fills the URLs of a release as GitHub does: a draft's page is untagged-<hash> and it has
// no source archives.
func (g *FakeGitHub) urls(repoName string, rel *GitHubRelease) {
	api := fmt.Sprintf("%srepos/%s/releases/%d", g.URL, repoName, rel.ID)
	rel.URL = api
	rel.AssetsURL = api + "/assets"
	rel.UploadURL = fmt.Sprintf("%srepos/%s/releases/%d/assets{?name,label}", strings.Replace(g.URL, "://", "://uploads.", 1), repoName, rel.ID)
	if rel.Draft {
		rel.HTMLURL = fmt.Sprintf("https://github.com/%s/releases/tag/untagged-%020x", repoName, rel.ID)
		rel.TarballURL, rel.ZipballURL = nil, nil
		return
	}
	rel.HTMLURL = fmt.Sprintf("https://github.com/%s/releases/tag/%s", repoName, url.PathEscape(rel.TagName))
	tb := fmt.Sprintf("%srepos/%s/tarball/%s", g.URL, repoName, url.PathEscape(rel.TagName))
	zb := fmt.Sprintf("%srepos/%s/zipball/%s", g.URL, repoName, url.PathEscape(rel.TagName))
	rel.TarballURL, rel.ZipballURL = &tb, &zb
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"message":"Server Error"}`)
	}
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func writeGitHubError(w http.ResponseWriter, status int, message, doc string, errs []map[string]string) {
	body := map[string]any{"message": message, "documentation_url": doc, "status": strconv.Itoa(status)}
	if errs != nil {
		body["errors"] = errs
	}
	writeJSON(w, status, body)
}
