;;; driver.el --- types in a file with eglot and completes at point, for emacs.test.ts  -*- lexical-binding: t -*-
;; Loaded after the init file (docs/editors.md's eglot block, placeholders filled in), in
;; `emacs --batch'. Reads RS_FILE (the file to open), RS_TYPED (the text typed on its last, empty
;; line) and RS_OUT (where the JSON report goes). Completes with `completion-at-point', the
;; command C-M-i runs, which asks the server through textDocument/completion.
(require 'json)
(defvar eglot-sync-connect) ; eglot's, loaded by eglot-ensure's autoload: bind it dynamically

(defun rs-report (&rest plist)
  (with-temp-file (getenv "RS_OUT") (insert (json-encode plist))))

(condition-case err
    (let ((eglot-sync-connect 60))
      (find-file (getenv "RS_FILE"))
      (goto-char (point-max))
      (insert (getenv "RS_TYPED"))
      (eglot-ensure)
      ;; eglot-ensure connects after the next command; in batch there is none, so run its hook.
      (run-hooks 'post-command-hook)
      (let ((server (eglot-current-server)))
        (unless server (error "eglot did not connect in %s" major-mode))
        (completion-at-point)
        (save-buffer)
        (rs-report :mode (symbol-name major-mode)
                   :completionProvider (and (eglot--server-capable :completionProvider) t)
                   :line (buffer-substring-no-properties (line-beginning-position) (line-end-position)))))
  (error (rs-report :error (error-message-string err))))
(kill-emacs 0)
