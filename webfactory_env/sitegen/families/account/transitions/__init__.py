"""The account portal's transitions: functions over its context, in three modules
(`drafts`: typing into forms and validation; `auth`: signing in, signing up, resetting a
password; `member`: the profile, settings, devices, keys and history). A test calls one
directly: `revoke_key(portal, key=key.id)`."""
