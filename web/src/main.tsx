// The console's entry: renders the app into the page `index.html` serves.
import { render } from 'preact'
import { App } from './app'
import { applyTheme } from './lib/theme'
import './styles.css'

// The kept light or dark choice is on the page before anything is drawn.
applyTheme()
render(<App />, document.getElementById('app') as HTMLElement)
