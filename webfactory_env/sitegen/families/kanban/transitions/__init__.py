"""The workspace's transitions: functions over its context, one module per part (`cards`:
what can happen to a card; `workspace`: boards, lists, forms, the team and the wizard),
with the effects they declare (`effects`). A test calls one directly:
`move_card(kanban, card="C-1", values={"column": "done"})`."""
