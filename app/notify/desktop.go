package notify

import (
	"context"
	"fmt"

	"github.com/gen2brain/beeep"

	"github.com/hivecrawl/hivecrawl/assets"
)

// Desktop sends messages as desktop notifications with beeep: on Linux
// through the org.freedesktop.Notifications D-Bus service (notify-send as
// a fallback), toasts on Windows, Notification Center on macOS.
type Desktop struct{}

var _ Sender = Desktop{}

func init() { beeep.AppName = "Hivecrawl" }

// Send shows m with the application icon.
func (Desktop) Send(ctx context.Context, m Message) error {
	icon, err := assets.IconPNG(assets.IconApp)
	if err != nil {
		return err
	}
	if err := beeep.Notify(m.Title, m.Body, icon); err != nil {
		return fmt.Errorf("show notification %q: %w", m.Title, err)
	}
	return nil
}
