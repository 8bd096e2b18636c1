;;; driver.el --- types in a file and completes at point, for emacs.test.ts  -*- lexical-binding: t -*-
;; Loaded after the init file (one of docs/editors.md's Emacs blocks, placeholders filled in), in
;; `emacs --batch'. Reads RS_CLIENT (`eglot' or `lsp-mode': which block the init file holds),
;; RS_FILE (the file to open), RS_TYPED (the text typed on its last, empty line) and RS_OUT (where
;; the JSON report goes). Completes with `completion-at-point', the command C-M-i runs, which asks
;; the server through textDocument/completion; then saves the file.
(require 'json)
;; The clients' options, bound or set before their packages load (by autoload, as for a user).
(defvar eglot-sync-connect)
(defvar lsp-auto-guess-root)
(defvar lsp-session-file)
(defvar lsp-completion-provider)
(defvar lsp-diagnostics-provider)

(defun rs-report (&rest plist)
  (with-temp-file (getenv "RS_OUT") (insert (json-encode plist))))

(defun rs-connect-eglot ()
  "Connect eglot as `eglot-ensure' does; the server's name (its serverInfo) and whether it offers completion."
  (let ((eglot-sync-connect 60))
    (eglot-ensure)
    ;; eglot-ensure connects after the next command; in batch there is none, so run its hook.
    (run-hooks 'post-command-hook))
  ;; eglot's synchronous wait ends at the server's first output, which on a busy machine can come
  ;; before the whole initialize answer: then it goes on connecting in the background.
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (eglot-current-server)) (< (float-time) deadline))
      (accept-process-output nil 0.1)))
  (let ((server (eglot-current-server)))
    (unless server (error "eglot did not connect in %s" major-mode))
    (list :servers (list (plist-get (eglot--server-info server) :name))
          :completionProvider (and (eglot--server-capable :completionProvider) t))))

(defun rs-connect-lsp-mode ()
  "Connect lsp-mode as M-x lsp does (the project root guessed, no questions); the servers' ids."
  (setq lsp-auto-guess-root t
        lsp-session-file (expand-file-name "lsp-session" temporary-file-directory)
        lsp-completion-provider :none   ; no company here: completion-at-point alone
        lsp-diagnostics-provider :none)
  (lsp)
  (let ((deadline (+ (float-time) 60)))
    (while (and (< (float-time) deadline)
                (not (seq-find (lambda (w) (eq (lsp--workspace-status w) 'initialized)) (lsp-workspaces))))
      (accept-process-output nil 0.1)))
  (let ((ids (mapcar (lambda (w) (symbol-name (lsp--client-server-id (lsp--workspace-client w)))) (lsp-workspaces))))
    (unless ids (error "lsp-mode did not connect in %s" major-mode))
    (list :servers ids
          :completionProvider (and (lsp-feature? "textDocument/completion") t))))

(condition-case err
    (progn
      (find-file (getenv "RS_FILE"))
      (goto-char (point-max))
      (insert (getenv "RS_TYPED"))
      (let ((connected (if (equal (getenv "RS_CLIENT") "lsp-mode") (rs-connect-lsp-mode) (rs-connect-eglot))))
        (completion-at-point)
        (save-buffer)
        (apply #'rs-report
               :mode (symbol-name major-mode)
               :line (buffer-substring-no-properties (line-beginning-position) (line-end-position))
               connected)))
  (error (rs-report :error (error-message-string err))))
(kill-emacs 0)
