"""Language data and text handling shared by every component: tokenizing, lexicons, messages."""
