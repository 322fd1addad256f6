"""Chat on the screens: the panel (:mod:`tui.chat.panel`), its words
(:mod:`tui.chat.words`) and the door a backend gives it (:mod:`tui.chat.door`)."""
