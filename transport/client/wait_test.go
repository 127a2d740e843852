package client_test

import (
	"testing"
	"time"

	"folio/transport/client"
)

// TestWaitAnswersWhenThePersonDecides: an agent waits in one goroutine while a
// person approves; the outcome carries the decision, the action's data and who
// decided. Asked again, a decided page answers at once.
func TestWaitAnswersWhenThePersonDecides(t *testing.T) {
	e, c := agent(t, "waiter")
	cx := ctx(t)
	id := must(c.Publish(cx, approvalPage("Ship it?")))(t).PageID
	done := make(chan *client.Outcome, 1)
	go func() {
		o, err := c.Wait(cx, id, 20*time.Second)
		if err != nil {
			t.Error(err)
		}
		done <- o
	}()
	time.Sleep(100 * time.Millisecond)
	person := client.New(e.Srv.URL, "") // a link holder, no key
	must(person.ExecuteAction(cx, id, "approve", client.ActionRequest{Actor: &client.ActionActor{Identity: "ann@example.com"}, Comment: "Go ahead"}))(t)
	var o *client.Outcome
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not answer the decision")
	}
	if o == nil || o.TimedOut || o.Status != client.StatusCompleted || o.Decision != "approved" || o.DecidedAt.IsZero() ||
		o.Data == nil || o.Data.ActionID != "approve" || o.Data.ActionLabel != "Approve" || o.Data.Comment != "Go ahead" ||
		o.Actor == nil || *o.Actor != (client.Actor{Identity: "ann@example.com", AuthMethod: "link"}) {
		t.Fatalf("Wait = %+v (data %+v, actor %+v)", o, o.Data, o.Actor)
	}
	start := time.Now()
	if again := must(c.Wait(cx, id, time.Minute))(t); again.Decision != "approved" || time.Since(start) > 5*time.Second {
		t.Errorf("a decided page: %+v after %v", again, time.Since(start))
	}
}

// TestATimedOutWaitIsAnAnswer: nobody decides; the wait answers TimedOut with the
// page still active and no decision, and no error.
func TestATimedOutWaitIsAnAnswer(t *testing.T) {
	_, c := agent(t, "patient")
	cx := ctx(t)
	id := must(c.Publish(cx, approvalPage("Anyone?")))(t).PageID
	start := time.Now()
	o, err := c.Wait(cx, id, 700*time.Millisecond)
	if err != nil || !o.TimedOut || o.Status != client.StatusActive || o.Decision != "" || o.Data != nil || o.Actor != nil {
		t.Fatalf("Wait = %+v, %v", o, err)
	}
	if took := time.Since(start); took < 700*time.Millisecond || took > 10*time.Second {
		t.Errorf("a 700 ms wait took %v", took)
	}
	if _, err := c.Wait(cx, "pg_unknown", time.Second); !client.IsNotFound(err) {
		t.Errorf("waiting on an unknown page: %v", err)
	}
}

// TestRequestApprovalPublishesAndWaits: RequestApproval returns once a person
// rejects the page it published, with the publish result and the outcome.
func TestRequestApprovalPublishesAndWaits(t *testing.T) {
	_, c := agent(t, "requester")
	cx := ctx(t)
	type answer struct {
		pub *client.PublishResult
		o   *client.Outcome
		err error
	}
	done := make(chan answer, 1)
	go func() {
		pub, o, err := c.RequestApproval(cx, approvalPage("Drop the old table?"), 20*time.Second)
		done <- answer{pub, o, err}
	}()
	var id string
	eventually(t, 5*time.Second, "the page published", func() bool {
		l := must(c.ListPages(cx, client.PageFilter{Status: client.StatusActive}))(t)
		if len(l.Pages) == 1 {
			id = l.Pages[0].PageID
		}
		return id != ""
	})
	must(c.ExecuteAction(cx, id, "reject", client.ActionRequest{Actor: &client.ActionActor{Identity: "dba@example.com"}}))(t)
	a := <-done
	if a.err != nil || a.pub.PageID != id || a.o.Decision != "rejected" || a.o.Data.ActionID != "reject" || a.o.Actor.AuthMethod != "api_key" {
		t.Fatalf("RequestApproval = %+v, %+v, %v", a.pub, a.o, a.err)
	}
}
