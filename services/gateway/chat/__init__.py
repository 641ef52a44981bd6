"""Table talk: the channels (rooms) and who may read and write them, posting, mutes, reports
and the chat fan-out (table_talk)."""
