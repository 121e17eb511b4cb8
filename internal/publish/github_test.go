package publish_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-github/v93/github"

	"github.com/plaios/plaios/internal/testenv"
)

// TestFakeGitHub checks the fake against go-github, the client publish uses: the shapes parse,
// pagination follows the Link header, drafts may share a tag but published releases may not,
// the get-by-tag endpoint does not see drafts (which is why publish lists the releases), and
// a request without the token is refused.
func TestFakeGitHub(t *testing.T) {
	ctx := context.Background()
	gh := testenv.GitHub(t, "acme/packs")
	gh.PerPageMax = 2
	api := gh.URL
	client, err := github.NewClient(github.WithAuthToken(gh.Token), github.WithURLs(&api, nil))
	if err != nil {
		t.Fatal(err)
	}
	draft, yes, no := true, true, false
	name, body, target := "@a/b@1.0.0", "notes", "0123456789abcdef0123456789abcdef01234567"
	req := github.CreateReleaseRequest{TagName: "@a/b@1.0.0", Name: &name, Body: &body, Draft: &draft, TargetCommitish: &target}
	first, resp, err := client.Repositories.CreateRelease(ctx, "acme", "packs", req)
	if err != nil || resp.StatusCode != http.StatusCreated || !first.Draft || first.TagName != "@a/b@1.0.0" || first.PublishedAt != nil || first.TarballURL != nil {
		t.Fatalf("create: %+v %v", first, err)
	}
	// A second draft for the same tag is allowed, as on GitHub.
	second, _, err := client.Repositories.CreateRelease(ctx, "acme", "packs", req)
	if err != nil || second.ID == first.ID {
		t.Fatalf("second draft: %v", err)
	}
	if _, resp, err := client.Repositories.GetReleaseByTag(ctx, "acme", "packs", "@a/b@1.0.0"); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("get by tag sees a draft: %v", err)
	}
	pub, resp, err := client.Repositories.UpdateRelease(ctx, "acme", "packs", first.ID, github.UpdateReleaseRequest{Draft: &no})
	if err != nil || resp.StatusCode != http.StatusOK || pub.Draft || pub.PublishedAt == nil || pub.HTMLURL == first.HTMLURL {
		t.Fatalf("publish: %+v %v", pub, err)
	}
	if got, _, err := client.Repositories.GetReleaseByTag(ctx, "acme", "packs", "@a/b@1.0.0"); err != nil || got.ID != first.ID {
		t.Errorf("get by tag after publishing: %v", err)
	}
	// Publishing the other draft, or creating a published release, for the tag: 422.
	_, _, err = client.Repositories.UpdateRelease(ctx, "acme", "packs", second.ID, github.UpdateReleaseRequest{Draft: &no})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusUnprocessableEntity || len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
		t.Errorf("publish a duplicate: %v", err)
	}
	req.Draft = &no
	if _, _, err = client.Repositories.CreateRelease(ctx, "acme", "packs", req); !errors.As(err, &er) || er.Errors[0].Code != "already_exists" {
		t.Errorf("create a duplicate: %v", err)
	}
	// Pagination: three releases, two per page.
	req.TagName, req.Draft, req.Prerelease = "@a/c@2.0.0-beta.1", &yes, &yes
	if _, _, err := client.Repositories.CreateRelease(ctx, "acme", "packs", req); err != nil {
		t.Fatal(err)
	}
	var all []*github.RepositoryRelease
	opt := &github.ListOptions{PerPage: 100}
	pages := 0
	for {
		page, resp, err := client.Repositories.ListReleases(ctx, "acme", "packs", opt)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if pages != 2 || len(all) != 3 || all[0].TagName != "@a/c@2.0.0-beta.1" || !all[0].Prerelease {
		t.Errorf("%d pages, %d releases", pages, len(all))
	}
	// No token, or an unknown repository.
	anon, _ := github.NewClient(github.WithURLs(&api, nil))
	if _, resp, _ := anon.Repositories.ListReleases(ctx, "acme", "packs", nil); resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %v", resp)
	}
	if _, resp, _ := client.Repositories.ListReleases(ctx, "acme", "other", nil); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown repository: %v", resp)
	}
	// Faults: the next call fails, a lost answer still does the work.
	gh.Inject(testenv.Fault{Method: "POST", Status: http.StatusBadGateway, After: true})
	req.TagName = "@a/d@1.0.0"
	if _, resp, _ := client.Repositories.CreateRelease(ctx, "acme", "packs", req); resp == nil || resp.StatusCode != http.StatusBadGateway {
		t.Errorf("fault: %v", resp)
	}
	if n := len(gh.Releases("acme/packs")); n != 4 {
		t.Errorf("%d releases after a lost answer, want 4", n)
	}
}
