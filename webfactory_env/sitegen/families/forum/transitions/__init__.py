"""The forum's transitions: functions over its context, the only place its rules live, in
three modules (`lists`: browsing; `forms`: drafts, validation, signing in; `posts`:
votes, answers, replies, threads). Every event the pages send is one function, named like
the event, with its effect declared once in its decorator; a test calls it directly
(`upvote(forum, post="T-1")`)."""
